/**
 * Authentication of the admin API: `x-gateway-api-key` names a key, and the key's role and reach
 * become the request's actor. The management service enforces roles and workspace isolation on
 * every action, so a route cannot forget to.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AuthThrottle } from "../auth-throttle.js";
import { countFailedKey, throttledRefusal } from "../request/open.js";
import type { Actor } from "../management/actor.js";
import type { GatewaySources } from "../management/gateway-sources.js";
import { HEADER, headerValue } from "../gateway-headers.js";
import { ManagementError } from "../store/errors.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The admin caller; set on every admin route. */
    actor?: Actor & { kind: "key" };
  }
}

/** Adds key authentication to every route of `scope`. */
export function requireAdminKey(scope: FastifyInstance, sources: GatewaySources, throttle?: AuthThrottle): void {
  scope.decorateRequest("actor", undefined);
  scope.addHook("onRequest", async (request, reply) => {
    const key = headerValue(request.headers, HEADER.apiKey)?.trim();
    if (!key) throw new ManagementError("missing_api_key", `${HEADER.apiKey}: the header is required; send an admin key`);
    const throttled = throttledRefusal(throttle, request, reply);
    if (throttled) throw new ManagementError(throttled.code, throttled.message);
    const identity = await sources.verifyAny(key);
    if (!identity) {
      const late = countFailedKey(throttle, request, reply);
      if (late) throw new ManagementError(late.code, late.message);
      throw new ManagementError("invalid_api_key", `${HEADER.apiKey}: the key is not valid`);
    }
    request.actor = {
      kind: "key",
      key_id: identity.id,
      organization_id: identity.organizationId,
      workspace_id: identity.workspaceId,
      role: identity.role,
    };
  });
}

/** The actor of an authenticated admin request. */
export function actorOf(request: FastifyRequest): Actor & { kind: "key" } {
  if (!request.actor) throw new ManagementError("missing_api_key", `${HEADER.apiKey}: the header is required`);
  return request.actor;
}
