/**
 * A contract fake of Azure OpenAI on 127.0.0.1, following Microsoft's public documents: the
 * "Azure OpenAI in Azure AI Foundry Models REST API reference" (data plane inference: deployment
 * paths, the required `api-version` query, `api-key` or `Authorization: Bearer` authentication,
 * error bodies, `retry-after` / `retry-after-ms` on 429), "Content filtering" (the
 * `prompt_filter_results` and `content_filter_results` annotations, finish reason
 * `content_filter`, the 400 `content_filter` error with its `innererror`, the stream's first event
 * carrying the prompt's results with no choices) and the Microsoft identity platform's
 * "OAuth 2.0 client credentials flow" (the token endpoint and its answers).
 *
 * It serves `POST /openai/deployments/{deployment}/{chat/completions|completions|embeddings}`
 * and `POST /{tenant}/oauth2/v2.0/token`, and records every request.
 */
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { type LocalServer, type ReceivedRequest, sendJson, startServer } from "../http-server.js";

/** How the next inference request is answered, when not the default. */
export type AzureBehaviour =
  /** An error status with Azure's error body, or the body given; `headers` added (retry-after, …). */
  | { kind: "error"; status: number; body?: unknown; headers?: Record<string, string> }
  /** The prompt refused by the content filter: 400 `content_filter` with the verdicts in `innererror`. */
  | { kind: "filtered-prompt" }
  /** The completion cut by the content filter: finish reason `content_filter`, violence filtered. */
  | { kind: "filtered-output" };

type Json = Record<string, unknown>;

/** Every category annotated, all safe: what Azure's default filter says of most text. */
function safeResults(): Json {
  return {
    hate: { filtered: false, severity: "safe" },
    self_harm: { filtered: false, severity: "safe" },
    sexual: { filtered: false, severity: "safe" },
    violence: { filtered: false, severity: "safe" },
  };
}

function promptResults(): Json[] {
  return [
    {
      prompt_index: 0,
      content_filter_results: { ...safeResults(), jailbreak: { filtered: false, detected: false } },
    },
  ];
}

const CUT_RESULTS = { ...safeResults(), violence: { filtered: true, severity: "medium" } };

/** The fake's view of one inference request. */
export interface AzureRequest {
  deployment: string;
  /** `chat/completions`, `completions` or `embeddings`. */
  operation: string;
  apiVersion: string | null;
  headers: ReceivedRequest["headers"];
  body: Json;
}

export class AzureFake {
  /** The key `api-key` must carry. */
  apiKey = "azure-key-0123456789abcdef0123456789ab";
  /** The Entra application the token endpoint knows. */
  readonly tenant = "11111111-2222-3333-4444-555555555555";
  readonly clientId = "app-client-id-0001";
  readonly clientSecret = "entra-client-secret-~Zq8Q~abcdefghijklmnop";
  /** Seconds a token lives. */
  tokenLifetime = 3599;
  /** Deployments that exist; any other answers 404 DeploymentNotFound. */
  deployments = new Set(["gpt-4o-prod", "text-embed", "instruct-prod"]);
  /** Text of the default answer; `echo: <last text>` when undefined. */
  text: string | undefined;
  readonly inference: AzureRequest[] = [];
  readonly tokenRequests: Json[] = [];
  /** Tokens issued so far; each authenticates inference calls. */
  readonly issued: string[] = [];
  #queue: AzureBehaviour[] = [];
  #server!: LocalServer;

  async start(): Promise<this> {
    this.#server = await startServer((request, response) => this.#handle(request, response));
    return this;
  }

  /** `http://127.0.0.1:<port>`: the authority host of the token endpoint. */
  get origin(): string {
    return this.#server.origin;
  }

  /** The base URL a provider record takes, as `https://{resource}.openai.azure.com/openai` would be. */
  get baseUrl(): string {
    return `${this.#server.origin}/openai`;
  }

  enqueue(...behaviours: AzureBehaviour[]): void {
    this.#queue.push(...behaviours);
  }

  reset(): void {
    this.#queue = [];
    this.inference.length = 0;
    this.tokenRequests.length = 0;
    this.text = undefined;
  }

  close(): Promise<void> {
    return this.#server.close();
  }

  #handle(request: ReceivedRequest, response: ServerResponse): void {
    const url = new URL(request.url, this.origin);
    const token = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
    if (token && request.method === "POST") return this.#token(token[1] as string, request, response);
    const route = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|completions|embeddings)$/.exec(url.pathname);
    // Azure answers an unknown path, or one without api-version, with a bare 404.
    if (!route || request.method !== "POST" || !url.searchParams.get("api-version")) {
      return sendJson(response, 404, { error: { code: "404", message: "Resource not found" } });
    }
    if (!this.#authorised(request)) {
      return sendJson(response, 401, {
        error: {
          code: "401",
          message:
            "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.",
        },
      });
    }
    const body = JSON.parse(request.body || "{}") as Json;
    const deployment = decodeURIComponent(route[1] as string);
    const operation = route[2] as string;
    this.inference.push({
      deployment,
      operation,
      apiVersion: url.searchParams.get("api-version"),
      headers: request.headers,
      body,
    });
    if (!this.deployments.has(deployment)) {
      return sendJson(response, 404, {
        error: {
          code: "DeploymentNotFound",
          message:
            "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.",
        },
      });
    }
    const behaviour = this.#queue.shift();
    if (behaviour?.kind === "error") {
      const headers = { "content-type": "application/json", ...(behaviour.headers ?? {}) };
      const status = behaviour.status;
      const errorBody = behaviour.body ?? { error: { code: String(status), message: `fake error ${status}` } };
      response.writeHead(status, headers);
      response.end(JSON.stringify(errorBody));
      return;
    }
    if (behaviour?.kind === "filtered-prompt") {
      return sendJson(response, 400, {
        error: {
          message:
            "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
          type: null,
          param: "prompt",
          code: "content_filter",
          status: 400,
          innererror: {
            code: "ResponsibleAIPolicyViolation",
            content_filter_result: { ...safeResults(), violence: { filtered: true, severity: "high" } },
          },
        },
      });
    }
    const cut = behaviour?.kind === "filtered-output";
    if (operation === "embeddings") return sendJson(response, 200, embeddings(body));
    if (body.stream === true) return this.#stream(operation, body, response, cut);
    return sendJson(response, 200, operation === "completions" ? this.#completion(body, cut) : this.#chat(body, cut));
  }

  #authorised(request: ReceivedRequest): boolean {
    const key = request.headers["api-key"];
    if (key !== undefined) return key === this.apiKey;
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "");
    return bearer !== null && this.issued.includes(bearer[1] as string);
  }

  #token(tenant: string, request: ReceivedRequest, response: ServerResponse): void {
    const form = Object.fromEntries(new URLSearchParams(request.body));
    this.tokenRequests.push(form);
    if (request.headers["content-type"] !== "application/x-www-form-urlencoded") {
      return sendJson(response, 400, {
        error: "invalid_request",
        error_description: "AADSTS900144: The request body must contain the following parameter: 'grant_type'.",
      });
    }
    if (tenant !== this.tenant) {
      return sendJson(response, 400, {
        error: "invalid_tenant",
        error_description: `AADSTS90002: Tenant '${tenant}' not found.\r\nTrace ID: 0000\r\nTimestamp: 2026-01-01 00:00:00Z`,
      });
    }
    if (form.grant_type !== "client_credentials" || form.scope !== "https://cognitiveservices.azure.com/.default") {
      return sendJson(response, 400, {
        error: "invalid_request",
        error_description: "AADSTS70011: The provided request must include a 'scope' input parameter.",
      });
    }
    if (form.client_id !== this.clientId || form.client_secret !== this.clientSecret) {
      return sendJson(response, 401, {
        error: "invalid_client",
        error_description: `AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${String(form.client_id)}'.\r\nTrace ID: 0000\r\nTimestamp: 2026-01-01 00:00:00Z`,
        error_codes: [7000215],
      });
    }
    const issued = `eyJ0eXAiOiJKV1QifQ.${randomBytes(24).toString("base64url")}.${randomBytes(16).toString("base64url")}`;
    this.issued.push(issued);
    sendJson(response, 200, {
      token_type: "Bearer",
      expires_in: this.tokenLifetime,
      ext_expires_in: this.tokenLifetime,
      access_token: issued,
    });
  }

  #replyText(body: Json): string {
    if (this.text !== undefined) return this.text;
    if (typeof body.prompt === "string") return `echo: ${body.prompt}`;
    const last = (body.messages as Array<{ content?: unknown }> | undefined)?.at(-1)?.content;
    return `echo: ${typeof last === "string" ? last : JSON.stringify(last)}`;
  }

  /** The tool call asked for: the first tool, unless the conversation already holds its result. */
  #toolCall(body: Json): { id: string; name: string; arguments: string } | undefined {
    const tools = body.tools as Array<{ function?: { name?: string } }> | undefined;
    const messages = body.messages as Array<{ role?: string }> | undefined;
    if (!tools?.length || body.tool_choice === "none" || messages?.at(-1)?.role === "tool") return undefined;
    return { id: "call_fake_1", name: tools[0]?.function?.name ?? "tool", arguments: JSON.stringify({ city: "Paris" }) };
  }

  #chat(body: Json, cut: boolean): Json {
    const tool = this.#toolCall(body);
    const message = tool
      ? {
          role: "assistant",
          content: null,
          tool_calls: [{ id: tool.id, type: "function", function: { name: tool.name, arguments: tool.arguments } }],
        }
      : { role: "assistant", content: cut ? "" : this.#replyText(body) };
    return {
      id: "chatcmpl-azure-fake",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "gpt-4o-2024-08-06",
      system_fingerprint: "fp_azure",
      prompt_filter_results: promptResults(),
      choices: [
        {
          index: 0,
          message,
          logprobs: null,
          finish_reason: cut ? "content_filter" : tool ? "tool_calls" : "stop",
          content_filter_results: cut ? CUT_RESULTS : safeResults(),
        },
      ],
      usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
    };
  }

  #completion(body: Json, cut: boolean): Json {
    return {
      id: "cmpl-azure-fake",
      object: "text_completion",
      created: 1_700_000_000,
      model: "gpt-35-turbo-instruct",
      prompt_filter_results: promptResults(),
      choices: [
        {
          index: 0,
          text: cut ? "" : this.#replyText(body),
          logprobs: null,
          finish_reason: cut ? "content_filter" : "stop",
          content_filter_results: cut ? CUT_RESULTS : safeResults(),
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
    };
  }

  #stream(operation: string, body: Json, response: ServerResponse, cut: boolean): void {
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (value: unknown) => response.write(`data: ${JSON.stringify(value)}\n\n`);
    const chat = operation === "chat/completions";
    // Azure's first event: the prompt's verdicts, with no choices and blank identifiers.
    send({ choices: [], created: 0, id: "", model: "", object: "", prompt_filter_results: promptResults() });
    const base = chat
      ? { id: "chatcmpl-azure-fake", object: "chat.completion.chunk", created: 1_700_000_000, model: "gpt-4o-2024-08-06" }
      : { id: "cmpl-azure-fake", object: "text_completion", created: 1_700_000_000, model: "gpt-35-turbo-instruct" };
    const tool = chat ? this.#toolCall(body) : undefined;
    if (chat)
      send({
        ...base,
        choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null, content_filter_results: {} }],
      });
    if (tool) {
      send({
        ...base,
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, id: tool.id, type: "function", function: { name: tool.name, arguments: "" } }] },
            finish_reason: null,
            content_filter_results: {},
          },
        ],
      });
      const half = Math.ceil(tool.arguments.length / 2);
      for (const piece of [tool.arguments.slice(0, half), tool.arguments.slice(half)]) {
        send({
          ...base,
          choices: [
            {
              index: 0,
              delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] },
              finish_reason: null,
              content_filter_results: {},
            },
          ],
        });
      }
    } else if (!cut) {
      for (const piece of this.#replyText(body).match(/\s*\S+\s*/g) ?? []) {
        const choice = chat ? { index: 0, delta: { content: piece } } : { index: 0, text: piece };
        send({ ...base, choices: [{ ...choice, finish_reason: null, content_filter_results: safeResults() }] });
      }
    }
    const finish = cut ? "content_filter" : tool ? "tool_calls" : "stop";
    const last = chat ? { index: 0, delta: {} } : { index: 0, text: "" };
    send({ ...base, choices: [{ ...last, finish_reason: finish, content_filter_results: cut ? CUT_RESULTS : {} }] });
    if ((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage) {
      send({ ...base, choices: [], usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 } });
    }
    response.end("data: [DONE]\n\n");
  }
}

function embeddings(body: Json): Json {
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  return {
    object: "list",
    data: inputs.map((input, index) => ({
      object: "embedding",
      index,
      embedding: [String(input).length / 100, 0.25, -0.5],
    })),
    model: "text-embedding-3-small",
    usage: { prompt_tokens: inputs.length * 2, total_tokens: inputs.length * 2 },
  };
}
