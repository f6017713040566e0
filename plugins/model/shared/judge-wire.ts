import { type CheckSettings, displayUrl, GuardgateError, outboundRequest } from "../../../core/index.js";
import type { ModelErrorCode } from "./error-codes.js";
/**
 * How `model.llmJudge` talks to a provider: one non-streamed request in the OpenAI
 * (`/chat/completions`) or Anthropic (`/messages`) format, sent through core/net with only the
 * endpoint's own credential, and the answer's text and token usage read back.
 */

/**
 * Where a judge is reached: the gateway resolves a provider slug to this (from the provider
 * record, never the client's request), or a check's `parameters.credentials.judges` gives it.
 */
export interface JudgeEndpoint {
  format: "openai" | "anthropic";
  /** Base URL with the version segment (`https://api.openai.com/v1`). */
  base_url: string;
  /** Headers sent as they are (the credential, for a resolved provider). */
  headers?: Record<string, string>;
  /** A key sent the way the format expects (Bearer, or x-api-key). */
  api_key?: string;
}

/** One judge request. */
export interface JudgeCall {
  endpoint: JudgeEndpoint;
  model: string;
  system: string;
  user: string;
  maxTokens: number;
  settings: CheckSettings;
  signal: AbortSignal;
}

/** What the judge said, and what it cost. */
export interface JudgeReply {
  text: string;
  usage: { input_tokens: number; output_tokens: number };
}

/** The provider answered, but not with a judgement to read: an error status or an unreadable body. */
export class JudgeCallError extends GuardgateError {
  constructor(message: string) {
    super("judge_call_failed" satisfies ModelErrorCode, message);
  }
}

const ANTHROPIC_VERSION = "2023-06-01";
/** A judgement is a few dozen tokens; a larger body is not one. */
const MAX_RESPONSE_BYTES = 1024 * 1024;
/** Ceiling of one call; the check's own time limit (its signal) usually ends it sooner. */
const CALL_CEILING_MS = 120_000;

function requestOf(call: JudgeCall): { path: string; headers: Record<string, string>; body: Record<string, unknown> } {
  const { endpoint } = call;
  const headers: Record<string, string> = { "content-type": "application/json", ...endpoint.headers };
  if (endpoint.format === "anthropic") {
    if (endpoint.api_key) headers["x-api-key"] = endpoint.api_key;
    headers["anthropic-version"] ??= ANTHROPIC_VERSION;
    return {
      path: "/messages",
      headers,
      body: {
        model: call.model,
        system: call.system,
        messages: [{ role: "user", content: call.user }],
        max_tokens: call.maxTokens,
        temperature: 0,
      },
    };
  }
  if (endpoint.api_key) headers.authorization = `Bearer ${endpoint.api_key}`;
  return {
    path: "/chat/completions",
    headers,
    body: {
      model: call.model,
      messages: [
        { role: "system", content: call.system },
        { role: "user", content: call.user },
      ],
      max_tokens: call.maxTokens,
      temperature: 0,
      response_format: { type: "json_object" },
    },
  };
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** The answer's text and usage, from a provider's JSON body. */
function readReply(format: JudgeEndpoint["format"], body: Record<string, unknown>, where: string): JudgeReply {
  const usage = (body.usage ?? {}) as Record<string, unknown>;
  let text: unknown;
  if (format === "anthropic") {
    const content = body.content;
    text = Array.isArray(content)
      ? content
          .filter((part) => (part as { type?: unknown }).type === "text")
          .map((part) => (part as { text?: unknown }).text)
          .join("")
      : undefined;
    if (typeof text !== "string") throw new JudgeCallError(`${where}: the answer has no text content`);
    return { text, usage: { input_tokens: count(usage.input_tokens), output_tokens: count(usage.output_tokens) } };
  }
  const choices = body.choices;
  text = Array.isArray(choices) ? (choices[0] as { message?: { content?: unknown } } | undefined)?.message?.content : undefined;
  if (typeof text !== "string") throw new JudgeCallError(`${where}: the answer has no choices[0].message.content`);
  return { text, usage: { input_tokens: count(usage.prompt_tokens), output_tokens: count(usage.completion_tokens) } };
}

/** Sends one judge request and returns the answer's text and token usage. */
export async function callJudge(call: JudgeCall): Promise<JudgeReply> {
  const { path, headers, body } = requestOf(call);
  const url = `${call.endpoint.base_url.replace(/\/+$/, "")}${path}`;
  const where = `POST ${displayUrl(url)}`;
  const response = await outboundRequest(url, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
    timeout: CALL_CEILING_MS,
    signal: call.signal,
    maxResponseBytes: MAX_RESPONSE_BYTES,
    settings: call.settings,
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body.toString("utf8"));
  } catch {
    parsed = undefined;
  }
  if (response.status < 200 || response.status >= 300) {
    const message = (parsed as { error?: { message?: unknown } } | undefined)?.error?.message;
    throw new JudgeCallError(
      `${where}: answered ${response.status}${typeof message === "string" ? `: ${message.slice(0, 300)}` : ""}`,
    );
  }
  if (!parsed || typeof parsed !== "object") throw new JudgeCallError(`${where}: the answer is not a JSON object`);
  return readReply(call.endpoint.format, parsed as Record<string, unknown>, where);
}
