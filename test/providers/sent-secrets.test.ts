/**
 * Every credential the gateway sends upstream stays out of what the client and the log see, even
 * when the provider echoes it: a Microsoft Entra or Google access token (exchanged by the gateway
 * at a token endpoint faked here) quoted in a 401/403 body, and the operator's key quoted in an
 * `error` event of a pass-through stream, written across two network reads with the key split
 * between them. The fakes listen on 127.0.0.1 and speak the providers' wire formats.
 */
import { generateKeyPairSync } from "node:crypto";
import type { ServerResponse } from "node:http";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forgetAzureTokens } from "../../server/providers/kinds/azure/auth.js";
import { type LocalServer, type ReceivedRequest, sendJson, startServer } from "../support/http-server.js";
import { gatewayHeaders, startGateway, type TestGateway } from "../support/gateway.js";

const TENANT = "11111111-2222-3333-4444-555555555555";
const CLIENT_ID = "app-client-id-0001";
const CLIENT_SECRET = "entra-client-secret-~Zq8Q~abcdefghijklmnop";
const ENTRA_TOKEN = "eyJ0eXAiOiJKV1QifQ.c2VjcmV0LWVudHJhLXRva2VuLXBheWxvYWQ.c2lnbmF0dXJlLXBhcnQ";
const GOOGLE_TOKEN = "ya29.c.exchanged-vertex-token-0123456789abcdef";
const OPENAI_KEY = "sk-operator-held-key-0123456789abcdefABCDEF";
const ANTHROPIC_KEY = "sk-ant-operator-held-key-0123456789abcdef";
const SECRETS = [ENTRA_TOKEN, GOOGLE_TOKEN, OPENAI_KEY, ANTHROPIC_KEY];

let fake: LocalServer;
let gateway: TestGateway;
const logLines: string[] = [];

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes `text` in two network reads, cut inside `secret`, 20 ms apart. */
async function writeSplit(response: ServerResponse, text: string, secret: string): Promise<void> {
  const cut = text.indexOf(secret) + Math.floor(secret.length / 2);
  response.write(text.slice(0, cut));
  await pause(20);
  response.end(text.slice(cut));
}

async function openaiStream(response: ServerResponse): Promise<void> {
  response.writeHead(200, { "content-type": "text/event-stream" });
  const chunk = { id: "c1", object: "chat.completion.chunk", created: 1, model: "m" };
  response.write(
    `data: ${JSON.stringify({ ...chunk, choices: [{ index: 0, delta: { role: "assistant", content: "Hi" } }] })}\n\n`,
  );
  await pause(5);
  const error = {
    error: { message: `Incorrect API key provided: ${OPENAI_KEY}.`, type: "invalid_request_error", code: "invalid_api_key" },
  };
  await writeSplit(response, `data: ${JSON.stringify(error)}\n\n`, OPENAI_KEY);
}

async function anthropicStream(response: ServerResponse): Promise<void> {
  response.writeHead(200, { "content-type": "text/event-stream" });
  const start = {
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-x",
      content: [],
      stop_reason: null,
      usage: { input_tokens: 1, output_tokens: 0 },
    },
  };
  response.write(`event: message_start\ndata: ${JSON.stringify(start)}\n\n`);
  await pause(5);
  const error = { type: "error", error: { type: "authentication_error", message: `invalid x-api-key ${ANTHROPIC_KEY}` } };
  await writeSplit(response, `event: error\ndata: ${JSON.stringify(error)}\n\n`, ANTHROPIC_KEY);
}

function handle(request: ReceivedRequest, response: ServerResponse): unknown {
  const url = new URL(request.url, fake.origin);
  if (url.pathname === `/${TENANT}/oauth2/v2.0/token`) {
    return sendJson(response, 200, { token_type: "Bearer", expires_in: 3599, access_token: ENTRA_TOKEN });
  }
  if (url.pathname === "/token")
    return sendJson(response, 200, { access_token: GOOGLE_TOKEN, expires_in: 3599, token_type: "Bearer" });
  const bearer = String(request.headers.authorization ?? "");
  if (url.pathname.startsWith("/openai/deployments/")) {
    // A proxy in front of the resource that quotes the credential it refused.
    return sendJson(response, 401, { error: { code: "401", message: `Access denied for ${bearer}: wrong audience` } });
  }
  if (url.pathname.startsWith("/v1/projects/")) {
    return sendJson(response, 403, {
      error: { code: 403, message: `Permission denied for token ${bearer.replace(/^Bearer /, "")}`, status: "PERMISSION_DENIED" },
    });
  }
  const body = JSON.parse(request.body || "{}") as { stream?: boolean };
  if (url.pathname === "/v1/chat/completions" && body.stream) return openaiStream(response);
  if (url.pathname === "/v1/messages" && body.stream) return anthropicStream(response);
  return sendJson(response, 404, { error: { message: "not found" } });
}

beforeAll(async () => {
  fake = await startServer(handle);
  const privateKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" });
  gateway = await startGateway({
    logBodies: true,
    logger: {
      level: "debug",
      stream: new Writable({
        write(chunk, _encoding, callback) {
          logLines.push(String(chunk));
          callback();
        },
      }),
    },
    file: {
      providers: [
        {
          slug: "azure-entra",
          provider: "azure-openai",
          base_url: `${fake.origin}/openai`,
          options: {
            azure_auth_mode: "entra",
            azure_entra_tenant_id: TENANT,
            azure_entra_client_id: CLIENT_ID,
            azure_entra_client_secret: CLIENT_SECRET,
            azure_authority_host: fake.origin,
            deployment_id: "gpt-4o-prod",
          },
        },
        {
          slug: "vertex",
          provider: "vertex-ai",
          base_url: `${fake.origin}/v1`,
          options: {
            vertex_region: "europe-west4",
            vertex_project_id: "acme-prod",
            vertex_service_account_json: {
              client_email: "gateway@acme-prod.iam.gserviceaccount.com",
              private_key: privateKey.toString(),
              token_uri: `${fake.origin}/token`,
              project_id: "acme-prod",
            },
          },
        },
        { slug: "openai-op", provider: "openai", base_url: `${fake.origin}/v1`, api_key: OPENAI_KEY },
        { slug: "anthropic-op", provider: "anthropic", base_url: `${fake.origin}/v1`, api_key: ANTHROPIC_KEY },
      ],
    },
  });
});

afterAll(async () => {
  forgetAzureTokens();
  await gateway.close();
  await fake.close();
});

/** The answer's status and bytes, and the request's log record as text. */
async function call(path: string, body: unknown, config?: unknown): Promise<{ status: number; text: string; record: string }> {
  const response = await fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...gatewayHeaders(config) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const id = response.headers.get("x-gateway-request-id");
  const record = await gateway.logs.waitFor((r) => r.id === id);
  return { status: response.status, text, record: JSON.stringify(record) };
}

function expectNoSecret(...texts: string[]): void {
  for (const text of texts) for (const secret of SECRETS) expect(text).not.toContain(secret);
}

const chat = (model: string, stream = false) => ({ model, stream, messages: [{ role: "user", content: "hi" }] });

describe("an exchanged access token echoed in an error body", () => {
  it("Microsoft Entra: the 401 keeps its status and message, without the token, in the answer and the log", async () => {
    const { status, text, record } = await call("/v1/chat/completions", chat("@azure-entra/gpt-4o"));
    expect(status).toBe(401);
    expect(text).toContain("Access denied for [REDACTED]: wrong audience");
    expectNoSecret(text, record, logLines.join(""));
  });

  it("Google Vertex AI: the 403 keeps its status, without the token, in the answer and the log", async () => {
    const { status, text, record } = await call("/v1/chat/completions", chat("@vertex/gemini-2.0-flash"));
    expect(status).toBe(403);
    expect(text).toContain("[REDACTED]");
    expectNoSecret(text, record, logLines.join(""));
  });

  it("streamed, the token is kept out of the error all the same", async () => {
    const { text, record } = await call("/v1/chat/completions", chat("@vertex/gemini-2.0-flash", true));
    expectNoSecret(text, record, logLines.join(""));
  });
});

describe("the operator's key in an error event of a pass-through stream, split across two reads", () => {
  it("OpenAI: the stream's bytes and the log never hold the key", async () => {
    const { status, text, record } = await call("/v1/chat/completions", chat("@openai-op/gpt-4o", true));
    expect(status).toBe(200);
    expect(text).toContain("Incorrect API key provided: [REDACTED].");
    expectNoSecret(text, record, logLines.join(""));
  });

  it("Anthropic: the error event keeps its shape, without the key", async () => {
    const body = { model: "@anthropic-op/claude-x", max_tokens: 20, stream: true, messages: [{ role: "user", content: "hi" }] };
    const { status, text, record } = await call("/v1/messages", body);
    expect(status).toBe(200);
    expect(text).toContain('"message":"invalid x-api-key [REDACTED]"');
    expectNoSecret(text, record, logLines.join(""));
  });
});
