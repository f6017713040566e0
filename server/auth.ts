/**
 * `x-gateway-api-key` on every inference and hook route (spec §5): a missing or unknown key is a
 * 401 before the body is read, and a source sending unknown keys is throttled (auth-throttle.ts).
 * The key's workspace scopes every lookup that follows.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AuthThrottle } from "./auth-throttle.js";
import { GatewayError } from "./errors.js";
import { HEADER, headerValue } from "./pipeline/headers.js";
import type { ApiKeyIdentity, ApiKeySource } from "./sources/types.js";

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
