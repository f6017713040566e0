/**
 * `x-gateway-api-key` on every inference and hook route (spec §5): a missing or unknown key is a
 * 401 before the body is read. The key's workspace scopes every lookup that follows.
 */
import type { FastifyInstance } from "fastify";
import { GatewayError } from "./errors.js";
import { HEADER, headerValue } from "./pipeline/headers.js";
import type { ApiKeyIdentity, ApiKeySource } from "./sources/types.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The verified caller; set on every authenticated route. */
    identity?: ApiKeyIdentity;
  }
}

/**
 * Adds the API key check to every route registered in `app` (an encapsulated scope). With
 * `adminInWorkspace` (the hook routes), an organization admin key naming one of its workspaces in
 * `x-gateway-workspace` acts in that workspace.
 */
export function requireApiKey(app: FastifyInstance, keys: ApiKeySource, options: { adminInWorkspace?: boolean } = {}): void {
  app.decorateRequest("identity", undefined);
  app.addHook("onRequest", async (request) => {
    const key = headerValue(request.headers, HEADER.apiKey)?.trim();
    if (!key) {
      throw new GatewayError(401, "missing_api_key", `${HEADER.apiKey}: the header is required; send a gateway API key`);
    }
    const workspace = options.adminInWorkspace ? headerValue(request.headers, HEADER.workspace)?.trim() : undefined;
    const identity = (await keys.verify(key)) ?? (workspace ? await keys.verifyInWorkspace?.(key, workspace) : undefined);
    if (!identity) {
      if (workspace && (await keys.whyRefused?.(key))) {
        throw new GatewayError(
          403,
          "workspace_not_in_organization",
          `${HEADER.workspace}: "${workspace}" is not a workspace of this key's organization`,
        );
      }
      const reason = await keys.whyRefused?.(key);
      if (reason) throw new GatewayError(403, "admin_key_not_for_models", `${HEADER.apiKey}: ${reason}`);
      throw new GatewayError(401, "invalid_api_key", `${HEADER.apiKey}: the key is not valid`);
    }
    request.identity = identity;
  });
}

/** The identity of an authenticated request. */
export function identityOf(request: { identity?: ApiKeyIdentity }): ApiKeyIdentity {
  if (!request.identity) throw new GatewayError(401, "missing_api_key", `${HEADER.apiKey}: the header is required`);
  return request.identity;
}
