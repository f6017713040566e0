/**
 * Contract fake of Google's model APIs on 127.0.0.1, following their public references:
 * - the Gemini API ("Gemini API reference": `POST /v1beta/models/{model}:generateContent`,
 *   `:streamGenerateContent?alt=sse` and `:batchEmbedContents`, the key in `x-goog-api-key`, an
 *   invalid key answered 400 INVALID_ARGUMENT with ErrorInfo reason API_KEY_INVALID);
 * - Vertex AI ("Vertex AI REST reference", `projects.locations.publishers.models`
 *   `generateContent`, `streamGenerateContent` and `predict` under
 *   `/v1/projects/{project}/locations/{region}/publishers/google/models/{model}`, a bearer token);
 * - Google's OAuth token endpoint for service accounts ("Using OAuth 2.0 for Server to Server
 *   Applications": `POST /token` with the jwt-bearer grant; the JWT's RS256 signature is verified
 *   with the test account's public key, its issuer, audience and cloud-platform scope checked).
 * Requests are checked against the documented shapes (`GenerateContentRequest`, `Content`,
 * `Part`, `GenerationConfig`, `Tool`, `Schema`, `ToolConfig`): an unknown field is the 400
 * INVALID_ARGUMENT Google answers. Errors have the google.rpc.Status shape; streams are SSE events
 * of one `GenerateContentResponse` each, the last carrying `finishReason` and `usageMetadata`.
 */
import { generateKeyPairSync } from "node:crypto";
import type { ServerResponse } from "node:http";
import { jwtVerify } from "jose";
import { isObject, type ServiceAccount } from "../../../core/internal.js";
import { type LocalServer, type ReceivedRequest, sendJson, startServer } from "../http-server.js";

/** How the next model call is answered; with none queued, "echo: <last user text>". */
export type GoogleBehaviour =
  | { kind: "text"; text: string; finishReason?: string; safetyRatings?: unknown[]; cachedTokens?: number }
  | { kind: "tool"; name: string; args: Record<string, unknown> }
  /** A prompt the safety filter blocked: `promptFeedback.blockReason`, no candidates. */
  | { kind: "blocked"; reason: string }
  /** A google.rpc.Status error. */
  | { kind: "error"; status: number; name: string; message: string; details?: unknown[] }
  /** A stream that stops before its candidate finishes. */
  | { kind: "cut"; text: string };

/** A model call as the fake received it. */
export interface GoogleRequest {
  service: "gemini" | "vertex";
  model: string;
  method: string;
  headers: ReceivedRequest["headers"];
  body: Record<string, unknown>;
}

export interface GoogleFake {
  origin: string;
  /** The Gemini API root, as a provider record's base_url. */
  geminiBaseUrl: string;
  /** The Vertex AI root, as a provider record's base_url. */
  vertexBaseUrl: string;
  apiKey: string;
  project: string;
  region: string;
  serviceAccount: ServiceAccount;
  /** Model calls received (token exchanges are not among them). */
  requests: GoogleRequest[];
  tokensIssued(): string[];
  enqueue(...behaviours: GoogleBehaviour[]): void;
  reset(): void;
  close(): Promise<void>;
}

const SAFETY_RATINGS = [
  { category: "HARM_CATEGORY_HATE_SPEECH", probability: "NEGLIGIBLE" },
  { category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "NEGLIGIBLE" },
  { category: "HARM_CATEGORY_HARASSMENT", probability: "NEGLIGIBLE" },
  { category: "HARM_CATEGORY_SEXUALLY_EXPLICIT", probability: "NEGLIGIBLE" },
];

class InvalidArgument extends Error {}

function status(code: number, name: string, message: string, details?: unknown[]): Record<string, unknown> {
  return { error: { code, message, status: name, ...(details && { details }) } };
}

/** Throws Google's "Unknown name" error for a field outside `allowed`. */
function onlyKeys(value: unknown, allowed: readonly string[], where: string): Record<string, unknown> {
  if (!isObject(value)) throw new InvalidArgument(`Invalid value at '${where}': expected an object`);
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw new InvalidArgument(`Invalid JSON payload received. Unknown name "${key}" at '${where}': Cannot find field.`);
    }
  }
  return value;
}

const SCHEMA_KEYS = [
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "items",
  "minItems",
  "maxItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "anyOf",
  "propertyOrdering",
  "default",
  "example",
];
const TYPES = ["TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"];

function checkSchema(schema: unknown, where: string): void {
  const s = onlyKeys(schema, SCHEMA_KEYS, where);
  if (s.type !== undefined && !TYPES.includes(String(s.type))) {
    throw new InvalidArgument(
      `Invalid value at '${where}.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), "${String(s.type)}"`,
    );
  }
  if (s.type === "OBJECT" && isObject(s.properties) && Object.keys(s.properties).length === 0) {
    throw new InvalidArgument(`${where}.properties: should be non-empty for OBJECT type`);
  }
  if (s.items !== undefined) checkSchema(s.items, `${where}.items`);
  if (isObject(s.properties)) for (const [k, v] of Object.entries(s.properties)) checkSchema(v, `${where}.properties[${k}]`);
  if (Array.isArray(s.anyOf)) s.anyOf.forEach((v, i) => checkSchema(v, `${where}.any_of[${i}]`));
}

const PART_KEYS = ["text", "inlineData", "fileData", "functionCall", "functionResponse", "thought"];

function checkPart(part: unknown, where: string): void {
  const p = onlyKeys(part, PART_KEYS, where);
  const data = PART_KEYS.filter((k) => k !== "thought" && p[k] !== undefined);
  if (data.length !== 1)
    throw new InvalidArgument(`${where}: a part holds exactly one of text, inlineData, fileData, functionCall, functionResponse`);
  if (p.inlineData !== undefined) onlyKeys(p.inlineData, ["mimeType", "data"], `${where}.inline_data`);
  if (p.fileData !== undefined) onlyKeys(p.fileData, ["mimeType", "fileUri"], `${where}.file_data`);
  if (p.functionCall !== undefined) onlyKeys(p.functionCall, ["name", "args", "id"], `${where}.function_call`);
  if (p.functionResponse !== undefined) {
    const r = onlyKeys(p.functionResponse, ["name", "response", "id"], `${where}.function_response`);
    if (!isObject(r.response)) throw new InvalidArgument(`${where}.function_response.response: must be an object`);
  }
}

/** Checks a GenerateContentRequest the way the API does, field by field. */
function checkGenerateContent(body: unknown): Record<string, unknown> {
  const b = onlyKeys(body, ["contents", "systemInstruction", "generationConfig", "tools", "toolConfig", "safetySettings"], "");
  if (!Array.isArray(b.contents) || b.contents.length === 0)
    throw new InvalidArgument("* GenerateContentRequest.contents: contents is not specified");
  b.contents.forEach((content, i) => {
    const c = onlyKeys(content, ["role", "parts"], `contents[${i}]`);
    if (c.role !== "user" && c.role !== "model") throw new InvalidArgument(`Please use a valid role: user, model.`);
    if (!Array.isArray(c.parts) || c.parts.length === 0) throw new InvalidArgument(`contents[${i}].parts: must not be empty`);
    c.parts.forEach((part, j) => checkPart(part, `contents[${i}].parts[${j}]`));
  });
  if (b.systemInstruction !== undefined) {
    const s = onlyKeys(b.systemInstruction, ["role", "parts"], "system_instruction");
    (s.parts as unknown[]).forEach((part, j) => checkPart(part, `system_instruction.parts[${j}]`));
  }
  if (b.generationConfig !== undefined) {
    const g = onlyKeys(
      b.generationConfig,
      [
        "stopSequences",
        "responseMimeType",
        "responseSchema",
        "candidateCount",
        "maxOutputTokens",
        "temperature",
        "topP",
        "topK",
        "seed",
        "presencePenalty",
        "frequencyPenalty",
      ],
      "generation_config",
    );
    if (g.responseSchema !== undefined) checkSchema(g.responseSchema, "generation_config.response_schema");
  }
  if (b.tools !== undefined) {
    (b.tools as unknown[]).forEach((tool, i) => {
      const t = onlyKeys(tool, ["functionDeclarations"], `tools[${i}]`);
      (t.functionDeclarations as unknown[]).forEach((fn, j) => {
        const f = onlyKeys(fn, ["name", "description", "parameters"], `tools[${i}].function_declarations[${j}]`);
        if (f.parameters !== undefined) checkSchema(f.parameters, `tools[${i}].function_declarations[${j}].parameters`);
      });
    });
  }
  if (b.toolConfig !== undefined) {
    const t = onlyKeys(b.toolConfig, ["functionCallingConfig"], "tool_config");
    const f = onlyKeys(t.functionCallingConfig, ["mode", "allowedFunctionNames"], "tool_config.function_calling_config");
    if (!["AUTO", "ANY", "NONE"].includes(String(f.mode)))
      throw new InvalidArgument(`Invalid value at 'tool_config.function_calling_config.mode'`);
  }
  return b;
}

function lastUserText(body: Record<string, unknown>): string {
  const contents = body.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
  const user = contents.filter((c) => c.role === "user").at(-1);
  return (user?.parts ?? []).map((p) => (typeof p.text === "string" ? p.text : "")).join("");
}

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function usage(body: Record<string, unknown>, answer: string, cached?: number): Record<string, unknown> {
  const prompt = words(JSON.stringify(body.contents));
  const candidates = words(answer);
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: prompt + candidates,
    ...(cached !== undefined && { cachedContentTokenCount: cached }),
  };
}

export async function startGoogleProviderFake(): Promise<GoogleFake> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const apiKey = "AIzaSy-fake-gemini-key-0123456789abcdef";
  const project = "acme-prod";
  const region = "europe-west4";
  const clientEmail = "gateway@acme-prod.iam.gserviceaccount.com";
  const issued: string[] = [];
  const requests: GoogleRequest[] = [];
  let queue: GoogleBehaviour[] = [];
  let origin = "";

  async function token(r: ReceivedRequest, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(r.body);
    if (r.headers["content-type"] !== "application/x-www-form-urlencoded") {
      return sendJson(res, 400, { error: "invalid_request", error_description: "Bad Request" });
    }
    if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") {
      return sendJson(res, 400, { error: "unsupported_grant_type", error_description: "Invalid grant_type" });
    }
    try {
      const { payload, protectedHeader } = await jwtVerify(form.get("assertion") ?? "", publicKey, {
        issuer: clientEmail,
        audience: `${origin}/token`,
        algorithms: ["RS256"],
      });
      if (protectedHeader.typ !== "JWT" || payload.scope !== "https://www.googleapis.com/auth/cloud-platform") {
        throw new Error("claims");
      }
    } catch {
      return sendJson(res, 400, { error: "invalid_grant", error_description: "Invalid JWT Signature." });
    }
    const access = `ya29.c.fake-vertex-token-${issued.length + 1}-abcdef0123456789`;
    issued.push(access);
    sendJson(res, 200, { access_token: access, expires_in: 3599, token_type: "Bearer" });
  }

  function candidate(
    parts: unknown[],
    finishReason?: string,
    safetyRatings: unknown[] = SAFETY_RATINGS,
  ): Record<string, unknown> {
    return {
      content: { role: "model", parts },
      ...(finishReason && { finishReason }),
      index: 0,
      safetyRatings,
    };
  }

  function answerJson(res: ServerResponse, body: Record<string, unknown>, model: string, behaviour: GoogleBehaviour): void {
    const common = { modelVersion: `${model}-001`, responseId: "fake-response-id" };
    if (behaviour.kind === "blocked") {
      return sendJson(res, 200, {
        promptFeedback: { blockReason: behaviour.reason, safetyRatings: SAFETY_RATINGS },
        usageMetadata: usage(body, ""),
        ...common,
      });
    }
    if (behaviour.kind === "tool") {
      return sendJson(res, 200, {
        candidates: [candidate([{ functionCall: { name: behaviour.name, args: behaviour.args } }], "STOP")],
        usageMetadata: usage(body, JSON.stringify(behaviour.args)),
        ...common,
      });
    }
    const text = behaviour.kind === "text" || behaviour.kind === "cut" ? behaviour.text : "";
    const finish = behaviour.kind === "text" ? (behaviour.finishReason ?? "STOP") : "STOP";
    const ratings = behaviour.kind === "text" ? behaviour.safetyRatings : undefined;
    // A candidate the safety filter stopped before any text comes without content.
    const answered = candidate(text ? [{ text }] : [], finish, ratings);
    if (!text) delete answered.content;
    sendJson(res, 200, {
      candidates: [answered],
      usageMetadata: usage(body, text, behaviour.kind === "text" ? behaviour.cachedTokens : undefined),
      ...common,
    });
  }

  function answerStream(res: ServerResponse, body: Record<string, unknown>, model: string, behaviour: GoogleBehaviour): void {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const common = { modelVersion: `${model}-001`, responseId: "fake-response-id" };
    const send = (event: Record<string, unknown>) => res.write(`data: ${JSON.stringify({ ...event, ...common })}\r\n\r\n`);
    if (behaviour.kind === "blocked") {
      send({ promptFeedback: { blockReason: behaviour.reason, safetyRatings: SAFETY_RATINGS }, usageMetadata: usage(body, "") });
      return void res.end();
    }
    if (behaviour.kind === "tool") {
      send({
        candidates: [candidate([{ functionCall: { name: behaviour.name, args: behaviour.args } }])],
        usageMetadata: usage(body, ""),
      });
      send({ candidates: [candidate([{ text: "" }], "STOP")], usageMetadata: usage(body, JSON.stringify(behaviour.args)) });
      return void res.end();
    }
    const text = behaviour.kind === "text" || behaviour.kind === "cut" ? behaviour.text : "";
    const pieces = text.match(/[\s\S]{1,12}/g) ?? [];
    for (const [i, piece] of pieces.entries()) {
      const last = i === pieces.length - 1 && behaviour.kind === "text";
      send({
        candidates: [candidate([{ text: piece }], last ? (behaviour.finishReason ?? "STOP") : undefined)],
        usageMetadata: usage(body, pieces.slice(0, i + 1).join(""), last ? behaviour.cachedTokens : undefined),
      });
    }
    if (pieces.length === 0 && behaviour.kind === "text") {
      send({
        candidates: [candidate([], behaviour.finishReason ?? "STOP", behaviour.safetyRatings)],
        usageMetadata: usage(body, ""),
      });
    }
    res.end();
  }

  function embeddings(res: ServerResponse, service: GoogleRequest["service"], model: string, body: unknown): void {
    if (service === "gemini") {
      const b = onlyKeys(body, ["requests"], "");
      const vectors = (b.requests as unknown[]).map((request, i) => {
        const r = onlyKeys(request, ["model", "content", "outputDimensionality", "taskType", "title"], `requests[${i}]`);
        if (r.model !== `models/${model}`) {
          throw new InvalidArgument(
            `requests[${i}].model: "${String(r.model)}" differs from the model of the URL, models/${model}`,
          );
        }
        const text = ((r.content as { parts: Array<{ text: string }> }).parts[0]?.text ?? "").length;
        return { values: Array.from({ length: Number(r.outputDimensionality ?? 3) }, (_, k) => text + k / 10) };
      });
      return sendJson(res, 200, { embeddings: vectors });
    }
    const b = onlyKeys(body, ["instances", "parameters"], "");
    const dimensions = Number((b.parameters as { outputDimensionality?: number } | undefined)?.outputDimensionality ?? 3);
    const predictions = (b.instances as unknown[]).map((instance, i) => {
      const content = String(onlyKeys(instance, ["content", "task_type", "title"], `instances[${i}]`).content);
      return {
        embeddings: {
          values: Array.from({ length: dimensions }, (_, k) => content.length + k / 10),
          statistics: { token_count: words(content), truncated: false },
        },
      };
    });
    sendJson(res, 200, { predictions, metadata: { billableCharacterCount: 1 } });
  }

  function handle(r: ReceivedRequest, res: ServerResponse): unknown {
    if (r.method === "POST" && r.url === "/token") return token(r, res);
    const gemini = /^\/v1beta\/models\/([^/:]+):(\w+)(\?alt=sse)?$/.exec(r.url);
    const vertex = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/google\/models\/([^/:]+):(\w+)(\?alt=sse)?$/.exec(
      r.url,
    );
    if (r.method !== "POST" || (!gemini && !vertex)) {
      return sendJson(res, 404, status(404, "NOT_FOUND", `The requested URL ${r.url} was not found on this server.`));
    }
    const service: GoogleRequest["service"] = gemini ? "gemini" : "vertex";
    if (gemini && r.headers["x-goog-api-key"] !== apiKey) {
      return sendJson(
        res,
        400,
        status(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
          { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com" },
        ]),
      );
    }
    if (vertex) {
      const bearer = String(r.headers.authorization ?? "").replace(/^Bearer /, "");
      if (!issued.includes(bearer)) {
        return sendJson(res, 401, status(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."));
      }
      if (vertex[1] !== project || vertex[2] !== region) {
        return sendJson(res, 403, status(403, "PERMISSION_DENIED", `Permission denied on resource project ${vertex[1]}.`));
      }
    }
    const model = decodeURIComponent((gemini ? gemini[1] : vertex?.[3]) ?? "");
    const method = (gemini ? gemini[2] : vertex?.[4]) ?? "";
    const sse = Boolean(gemini ? gemini[3] : vertex?.[5]);
    let body: unknown;
    try {
      body = JSON.parse(r.body);
    } catch {
      return sendJson(res, 400, status(400, "INVALID_ARGUMENT", "Invalid JSON payload received."));
    }
    try {
      if (method === "batchEmbedContents" || method === "predict") {
        requests.push({ service, model, method, headers: r.headers, body: body as Record<string, unknown> });
        return embeddings(res, service, model, body);
      }
      if (method !== "generateContent" && method !== "streamGenerateContent") {
        return sendJson(res, 404, status(404, "NOT_FOUND", `Method ${method} not found`));
      }
      if (method === "streamGenerateContent" && !sse) {
        throw new InvalidArgument("this fake streams Server-Sent Events only: ask with alt=sse");
      }
      const checked = checkGenerateContent(body);
      requests.push({ service, model, method, headers: r.headers, body: checked });
      const behaviour = queue.shift() ?? { kind: "text", text: `echo: ${lastUserText(checked)}` };
      if (behaviour.kind === "error") {
        return sendJson(res, behaviour.status, status(behaviour.status, behaviour.name, behaviour.message, behaviour.details));
      }
      if (method === "streamGenerateContent") return answerStream(res, checked, model, behaviour);
      return answerJson(res, checked, model, behaviour);
    } catch (error) {
      if (!(error instanceof InvalidArgument)) throw error;
      return sendJson(res, 400, status(400, "INVALID_ARGUMENT", error.message));
    }
  }

  const server: LocalServer = await startServer(handle);
  origin = server.origin;
  return {
    origin,
    geminiBaseUrl: `${origin}/v1beta`,
    vertexBaseUrl: `${origin}/v1`,
    apiKey,
    project,
    region,
    serviceAccount: {
      client_email: clientEmail,
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      token_uri: `${origin}/token`,
      project_id: project,
    },
    requests,
    tokensIssued: () => [...issued],
    enqueue: (...behaviours) => queue.push(...behaviours),
    reset() {
      requests.length = 0;
      queue = [];
    },
    close: () => server.close(),
  };
}
