/**
 * The open stage: the caller's API key checked, then intake of an inference request.
 *
 * `x-gateway-api-key` on every inference and hook route (spec §5): a missing or unknown key is a
 * 401 before the body is read, and a source sending unknown keys is throttled (auth-throttle.ts).
 * The key's workspace scopes every lookup that follows.
 *
 * Intake: the request's context built once, in two steps. `open` takes what cannot refuse it (id,
 * caller, endpoint, body, abort signal), so a request refused later still has a context to be
 * recorded with; `read` reads the rest, each step able to refuse with a 400 naming
 * what was wrong: the body's shape (before any guardrail judges a field that is not there), the
 * gateway headers, the routing, the metadata. Each of those readings is here too, below the two
 * steps, with why it reads as it does.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { RequestType } from "../../core/index.js";
import { isObject } from "../../core/internal.js";
import type { AuthThrottle } from "../auth-throttle.js";
import { GatewayError } from "../errors.js";
import type { Endpoint } from "../formats/endpoints.js";
import { HEADER, headerValue } from "../gateway-headers.js";
import type { CallerCredentials, HeaderProviderSettings } from "../providers/resolve.js";
import { EMPTY_ROUTING, type Routing } from "../routing/build.js";
import type { RoutingResolver } from "../routing/resolver.js";
import type { ApiKeyIdentity, ApiKeySource } from "../sources/types.js";
import type { RequestContext } from "./context.js";

/** What intake reads of an HTTP request; a fastify request is one. */
export interface IncomingRequest {
  /** The request id the server made: the access line, the answer's header and the log record share it. */
  id: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

// Shared by every opened context until `read` replaces it: a request refused before its headers were
// read has no metadata, and nothing writes to it.
const NO_METADATA = Object.freeze({}) as Record<string, string>;

/** Builds the contexts of inference requests. */
export class InferenceIntake {
  constructor(private readonly routing: RoutingResolver) {}

  /** The context of a request with nothing read that could refuse it: the empty routing, strict compliance. */
  open(endpoint: Endpoint, request: IncomingRequest, identity: ApiKeyIdentity, signal: AbortSignal): RequestContext {
    const body = isObject(request.body) ? request.body : {};
    return {
      id: request.id,
      started: performance.now(),
      endpoint,
      identity,
      body,
      stream: body.stream === true,
      strict: true,
      metadata: NO_METADATA,
      headers: request.headers,
      headerProvider: NO_HEADER_PROVIDER,
      caller: NO_CALLER,
      routing: EMPTY_ROUTING,
      signal,
    };
  }

  /**
   * The context of an opened request with its body shape, gateway headers, routing and metadata read;
   * throws the refusal (a GatewayError) of the first that is wrong. `body` is the request's body as
   * parsed: `open` stood an empty object in for one that is not an object, which is refused here.
   * The context comes back at once when its routing was cached (or there is none), as a promise
   * while the routing is built.
   */
  read(ctx: RequestContext, body: unknown): RequestContext | Promise<RequestContext> {
    if (!isObject(body)) throw new GatewayError("invalid_request", "the body must be a JSON object");
    assertRequestShape(ctx.endpoint.requestType, ctx.body);
    const headers = ctx.headers;
    const strict = strictCompliance(headers);
    const headerProvider = headerProviderSettings(headers);
    const caller = callerCredentials(headers);
    // Metadata is read after the routing, so a request wrong in both is refused for its config.
    const withRouting = (routing: Routing): RequestContext => {
      const metadata = metadataHeader(headerValue(headers, HEADER.metadata));
      return { ...ctx, strict, headerProvider, caller, routing, metadata };
    };
    // Policies are added per target by the pipeline, once each target's provider and model are known.
    const config = headerValue(headers, HEADER.config);
    // Without the header the opened context's empty routing stands.
    if (config === undefined) return withRouting(ctx.routing);
    const routing = this.routing.resolve(config, { workspaceId: ctx.identity.workspaceId });
    return routing instanceof Promise ? routing.then(withRouting) : withRouting(routing);
  }
}

// The shape an inference body must have before any guardrail reads it: the field each route's
// checks evaluate (spec §4) present and of a type the engine can read. A body without it would
// have its guardrails judge an empty string and pass, so it is a 400 naming the field instead.
// Nesting is bounded too, on the body's text before it is parsed, so neither the parser nor anything
// downstream (serialising a log record) meets an absurd depth.

/** Deepest nesting of objects and arrays a JSON body may have (a tool schema rarely passes 20). */
export const MAX_BODY_DEPTH = 64;

function refuse(field: string, problem: string): never {
  throw new GatewayError("invalid_request", `${field}: ${problem}`);
}

// Character codes of the JSON punctuation that opens and closes strings and levels.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * The nesting depth of JSON text, read in one pass without parsing: brackets inside strings are
 * text. Stops at the first level past `limit`, so an absurd body costs no more than its first
 * `limit` brackets. Malformed text is left for the parser to refuse.
 */
export function jsonTextDepth(text: string, limit = MAX_BODY_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--;
  }
  return deepest;
}

/**
 * Refuses JSON text nested deeper than MAX_BODY_DEPTH before it is parsed: JSON.parse on a few
 * megabytes of brackets holds the event loop for seconds, the scan for milliseconds.
 */
export function assertJsonTextDepth(text: string): void {
  if (jsonTextDepth(text) > MAX_BODY_DEPTH) {
    throw new GatewayError("body_too_deep", `the body nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels`);
  }
}

function assertContent(content: unknown, field: string, last: boolean): void {
  if (typeof content === "string") return;
  if (Array.isArray(content)) {
    content.forEach((part, index) => {
      if (!isObject(part) || typeof part.type !== "string") refuse(`${field}[${index}]`, "must be a content part {type, ...}");
      if (part.type === "text" && typeof part.text !== "string") refuse(`${field}[${index}].text`, "must be a string");
    });
    return;
  }
  // An assistant turn that only calls tools has no content; the evaluated last message must have some.
  if ((content === null || content === undefined) && !last) return;
  refuse(
    field,
    last
      ? "must be a string or an array of content parts (the last message is what guardrails read)"
      : "must be a string, an array of content parts or null",
  );
}

function assertMessages(body: Record<string, unknown>): void {
  const messages = body.messages;
  if (messages === undefined) refuse("messages", "is required");
  if (!Array.isArray(messages) || messages.length === 0)
    refuse("messages", "must be a non-empty array of messages {role, content}");
  messages.forEach((message, index) => {
    const field = `messages[${index}]`;
    if (!isObject(message)) refuse(field, "must be an object {role, content}");
    if (typeof message.role !== "string" || message.role === "") refuse(`${field}.role`, "must be a non-empty string");
    assertContent(message.content, `${field}.content`, index === messages.length - 1);
  });
}

function assertTexts(body: Record<string, unknown>, field: "prompt" | "input"): void {
  const value = body[field];
  if (value === undefined) refuse(field, "is required");
  if (typeof value === "string") return;
  if (!Array.isArray(value) || value.length === 0) refuse(field, "must be a string or a non-empty array");
  // Token arrays (numbers) are valid for the upstream; guardrails read the string entries.
  if (!value.every((entry) => typeof entry === "string" || typeof entry === "number" || Array.isArray(entry))) {
    refuse(field, "must hold strings (or token arrays)");
  }
}

/**
 * A Responses request's `input`: a string, or a non-empty list of items, each an object; the
 * items guardrails read (messages, `function_call_output`) carry text as a string or typed parts.
 */
function assertResponsesInput(body: Record<string, unknown>): void {
  const input = body.input;
  if (input === undefined) refuse("input", "is required");
  if (typeof input === "string") return;
  if (!Array.isArray(input) || input.length === 0) refuse("input", "must be a string or a non-empty array of input items");
  input.forEach((item, index) => {
    const field = `input[${index}]`;
    if (!isObject(item)) refuse(field, "must be an input item object");
    if (item.type === "function_call_output") {
      if (typeof item.output !== "string" && !Array.isArray(item.output))
        refuse(`${field}.output`, "must be a string or an array of content parts");
    } else if ((item.type === undefined || item.type === "message") && item.content !== undefined) {
      if (typeof item.content !== "string" && !Array.isArray(item.content))
        refuse(`${field}.content`, "must be a string or an array of content parts");
    }
  });
}

/** Throws a 400 naming the field when a body does not have its route's shape. */
export function assertRequestShape(requestType: RequestType, body: Record<string, unknown>): void {
  if (body.model !== undefined && typeof body.model !== "string") refuse("model", "must be a string");
  if (body.stream !== undefined && typeof body.stream !== "boolean") refuse("stream", "must be a boolean");
  switch (requestType) {
    case "chatComplete":
      return assertMessages(body);
    case "messages":
      if (body.system !== undefined && typeof body.system !== "string" && !Array.isArray(body.system)) {
        refuse("system", "must be a string or an array of content blocks");
      }
      return assertMessages(body);
    case "complete":
      return assertTexts(body, "prompt");
    case "embed":
      return assertTexts(body, "input");
    case "responses":
      return assertResponsesInput(body);
  }
}

// The gateway's request headers an inference request is read for (spec §5), once per request:
// strict compliance, the provider a header names, and the caller's own provider credentials.
// Credentials are carried for the upstream only; checks and logs never see them.

/** The spec's legacy header, as written there (spec §5). */
const LEGACY_VIRTUAL_KEY = "virtual_key";

// Most requests name no provider by header, and many carry no credential of their own: they share
// one empty value each, read-only like every value of a request's context, rather than a new one.
/** No provider settings by header. */
export const NO_HEADER_PROVIDER = Object.freeze({}) as HeaderProviderSettings;
/** No credentials of the caller's own. */
export const NO_CALLER = Object.freeze({}) as CallerCredentials;

/** Strict compliance is on unless the header says `false` (spec §5, §6). */
export function strictCompliance(headers: IncomingHttpHeaders): boolean {
  const value = headerValue(headers, HEADER.strictCompliance)?.trim().toLowerCase();
  if (value === undefined || value === "" || value === "true") return true;
  if (value === "false") return false;
  throw new GatewayError("invalid_header", `${HEADER.strictCompliance}: must be true or false`);
}

/** Provider settings carried by headers. */
export function headerProviderSettings(headers: IncomingHttpHeaders): HeaderProviderSettings {
  const provider = headerValue(headers, HEADER.provider)?.trim();
  const virtualKey = (headerValue(headers, HEADER.virtualKey) ?? headerValue(headers, LEGACY_VIRTUAL_KEY))?.trim();
  const customHost = headerValue(headers, HEADER.customHost)?.trim();
  if (!provider && !virtualKey && !customHost) return NO_HEADER_PROVIDER;
  const settings: HeaderProviderSettings = {};
  if (provider) settings.provider = provider;
  if (virtualKey) settings.virtualKey = virtualKey;
  if (customHost) settings.customHost = customHost;
  return settings;
}

/** The caller's own provider credentials. */
export function callerCredentials(headers: IncomingHttpHeaders): CallerCredentials {
  const authorization = headerValue(headers, "authorization");
  const apiKey = headerValue(headers, "x-api-key");
  if (!authorization && !apiKey) return NO_CALLER;
  const credentials: CallerCredentials = {};
  if (authorization) credentials.authorization = authorization;
  if (apiKey) credentials.apiKey = apiKey;
  return credentials;
}

// The metadata a request hands to checks: an object of strings, from `x-gateway-metadata` on the
// inference routes, from the body on the hook routes. One reading for all of them; only what is
// done with a value that is not a string differs (refused, or dropped for the peer's webhook).

/**
 * `value` as metadata. Strict: anything but an object of strings is a 400 naming `where` and the
 * key. Lenient (the peer may post other values): values that are not strings are dropped.
 */
export function metadataOf(value: unknown, where: string, strict: boolean): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    if (strict) throw new GatewayError("invalid_metadata", `${where}: must be a JSON object of strings`);
    return {};
  }
  const entries = value as Record<string, unknown>;
  let kept: Record<string, string> | undefined;
  for (const key in entries) {
    if (typeof entries[key] === "string") continue;
    if (strict) {
      throw new GatewayError("invalid_metadata", `${where}.${key}: must be a string, not ${typeof entries[key]}`);
    }
    kept = {};
    break;
  }
  if (!kept) return entries as Record<string, string>;
  for (const key in entries) if (typeof entries[key] === "string") kept[key] = entries[key] as string;
  return kept;
}

/** `x-gateway-metadata`: JSON text of an object of strings; empty or absent is none. */
export function metadataHeader(text: string | undefined): Record<string, string> {
  if (text === undefined || text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new GatewayError("invalid_metadata", `${HEADER.metadata}: is not valid JSON: ${(error as Error).message}`);
  }
  return metadataOf(parsed, HEADER.metadata, true);
}

// The API key (spec §5), checked before the body is read.

declare module "fastify" {
  interface FastifyRequest {
    /** The verified caller; set on every authenticated route. */
    identity?: ApiKeyIdentity;
  }
}

/** The answer to a key of a throttled source (with `retry-after`, set on the reply); its status is the code's. */
export interface KeyRefusal {
  code: "too_many_failed_keys";
  message: string;
}

/**
 * Refuses a request of a throttled source before its key is looked up; undefined when the key may
 * be checked. Sets `retry-after` on the reply when it refuses.
 */
export function throttledRefusal(
  throttle: AuthThrottle | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
): KeyRefusal | undefined {
  const wait = throttle?.retryAfter(request.ip) ?? 0;
  if (wait === 0) return undefined;
  reply.header("retry-after", String(wait));
  return throttledMessage(wait);
}

/**
 * Counts an unknown key of the request's source and logs it at warn (never the key). Returns the
 * 429 to answer instead of a 401 when the source was stopped while this key was looked up.
 */
export function countFailedKey(
  throttle: AuthThrottle | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
): KeyRefusal | undefined {
  if (!throttle) return undefined;
  const count = throttle.failed(request.ip);
  // Past the stop, failures are answered 429 and not logged one by one: the stop's line said it.
  if (count.retryAfterSeconds > 0) {
    reply.header("retry-after", String(count.retryAfterSeconds));
    return throttledMessage(count.retryAfterSeconds);
  }
  const fields = { source: request.ip, route: request.routeOptions.url ?? request.url.split("?")[0], failures: count.failures };
  if (count.stopped) {
    const wait = throttle.retryAfter(request.ip);
    request.log.warn(
      { ...fields, retryAfterSeconds: wait },
      `unknown API keys: ${request.ip} sent ${count.failures}; its keys are refused for ${wait} s`,
    );
  } else request.log.warn(fields, "unknown API key");
  return undefined;
}

function throttledMessage(wait: number): KeyRefusal {
  return {
    code: "too_many_failed_keys",
    message: `${HEADER.apiKey}: too many unknown keys from this address; try again in ${wait} s`,
  };
}

/**
 * Adds the API key check to every route registered in `app` (an encapsulated scope). With
 * `adminInWorkspace` (the hook routes), an organization admin key naming one of its workspaces in
 * `x-gateway-workspace` acts in that workspace.
 */
export function requireApiKey(
  app: FastifyInstance,
  keys: ApiKeySource,
  throttle?: AuthThrottle,
  options: { adminInWorkspace?: boolean } = {},
): void {
  app.decorateRequest("identity", undefined);
  app.addHook("onRequest", async (request, reply) => {
    const key = headerValue(request.headers, HEADER.apiKey)?.trim();
    if (!key) {
      throw new GatewayError("missing_api_key", `${HEADER.apiKey}: the header is required; send a gateway API key`);
    }
    const throttled = throttledRefusal(throttle, request, reply);
    if (throttled) throw new GatewayError(throttled.code, throttled.message);
    const named = headerValue(request.headers, HEADER.workspace)?.trim() || undefined;
    const workspace = options.adminInWorkspace ? named : undefined;
    const own = await keys.verify(key);
    // A workspace key acts in its own workspace only: naming another is refused, not ignored, so a
    // caller never believes it acts where it does not.
    if (own && named !== undefined && own.workspaceId !== named) {
      throw new GatewayError(
        "workspace_not_of_key",
        `${HEADER.workspace}: "${named}" is not this key's workspace; a workspace's key acts in its own workspace only`,
      );
    }
    const identity = own ?? (workspace ? await keys.verifyInWorkspace?.(key, workspace) : undefined);
    if (!identity) {
      if (workspace && (await keys.whyRefused?.(key))) {
        throw new GatewayError(
          "workspace_not_in_organization",
          `${HEADER.workspace}: "${workspace}" is not a workspace of this key's organization`,
        );
      }
      const reason = await keys.whyRefused?.(key);
      if (reason) throw new GatewayError("admin_key_not_for_models", `${HEADER.apiKey}: ${reason}`);
      const late = countFailedKey(throttle, request, reply);
      if (late) throw new GatewayError(late.code, late.message);
      throw new GatewayError("invalid_api_key", `${HEADER.apiKey}: the key is not valid`);
    }
    request.identity = identity;
  });
}

/** The identity of an authenticated request. */
export function identityOf(request: { identity?: ApiKeyIdentity }): ApiKeyIdentity {
  if (!request.identity) throw new GatewayError("missing_api_key", `${HEADER.apiKey}: the header is required`);
  return request.identity;
}
