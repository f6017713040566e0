/**
 * Vertex AI's bearer token: the service account of the provider's `vertex_service_account_json`
 * option signs a JWT that its `token_uri` exchanges for an access token (core/net/google-token.ts
 * signs and caches; the exchange goes out through the upstream client like a provider call). A
 * failed exchange is a 502 `provider_auth_failed` that names the account's field or the token
 * endpoint's refusal, never the key or a token.
 */
import {
  DEFAULT_TOKEN_URI,
  isObject,
  type ServiceAccount,
  ServiceAccountKeyError,
  serviceAccountToken,
} from "../../../../core/internal.js";
import { GatewayError } from "../../../errors.js";
import type { UpstreamClient } from "../../../upstream/client.js";
import type { Json, ProviderCall } from "../../kind.js";

export const SERVICE_ACCOUNT_OPTION = "vertex_service_account_json";

function failed(message: string): GatewayError {
  return new GatewayError("provider_auth_failed", message);
}

/** The service account of the options: given as an object, or as its JSON text. */
export function serviceAccountOf(options: Json): ServiceAccount {
  let account = options[SERVICE_ACCOUNT_OPTION];
  if (typeof account === "string") {
    try {
      account = JSON.parse(account) as unknown;
    } catch {
      throw failed(`${SERVICE_ACCOUNT_OPTION} is text that is not JSON; give the service account key file's JSON`);
    }
  }
  if (!isObject(account)) {
    throw new GatewayError(
      "provider_not_configured",
      `Vertex AI needs ${SERVICE_ACCOUNT_OPTION}: a service account key (its JSON object, or that JSON as text)`,
    );
  }
  for (const field of ["client_email", "private_key"] as const) {
    if (typeof account[field] !== "string" || account[field] === "") {
      throw failed(`${SERVICE_ACCOUNT_OPTION}.${field} is missing`);
    }
  }
  if (account.token_uri !== undefined && typeof account.token_uri !== "string") {
    throw failed(`${SERVICE_ACCOUNT_OPTION}.token_uri must be a URL`);
  }
  return account as unknown as ServiceAccount;
}

/**
 * Whether the token endpoint is the operator's choice. A provider record's service account is; one
 * in a config may be a client's (x-gateway-config), so its `token_uri`, unless Google's own, goes
 * through the custom-host address policy like any host a client chose: no private network, no
 * metadata service.
 */
function tokenEndpointTrusted(call: ProviderCall, url: string): boolean {
  return call.provider.trusted && (call.provider.slug !== undefined || url === DEFAULT_TOKEN_URI);
}

/** The bearer token for a Vertex AI call. */
export async function vertexAccessToken(call: ProviderCall, upstream: UpstreamClient | undefined): Promise<string> {
  // The translation always passes its client; a caller that does not has no way to reach the token endpoint.
  if (!upstream) throw new Error("a Vertex AI call needs the upstream client to obtain its access token");
  const account = serviceAccountOf(call.provider.options);
  try {
    return await serviceAccountToken(account, async (exchange) => {
      const response = await upstream.send({
        ...exchange,
        trusted: tokenEndpointTrusted(call, exchange.url),
        ...(call.timeoutMs !== undefined && { timeoutMs: call.timeoutMs }),
        ...(call.signal && { signal: call.signal }),
      });
      const text = await response.text();
      let body: Json = {};
      try {
        const parsed = JSON.parse(text) as unknown;
        if (isObject(parsed)) body = parsed;
      } catch {
        // Said below.
      }
      if (response.status !== 200) {
        // OAuth errors say `error` and `error_description`; neither holds the assertion.
        const said = [body.error, body.error_description]
          .filter((v) => typeof v === "string")
          .join(": ")
          .slice(0, 300);
        throw failed(
          `the token endpoint refused the service account ${account.client_email} with ${response.status}${said ? `: ${said}` : ""}`,
        );
      }
      if (typeof body.access_token !== "string" || typeof body.expires_in !== "number") {
        throw failed("the token endpoint answered without access_token and expires_in");
      }
      return { accessToken: body.access_token, expiresIn: body.expires_in };
    });
  } catch (error) {
    if (error instanceof ServiceAccountKeyError) throw failed(`${SERVICE_ACCOUNT_OPTION}.${error.message}`);
    // A token endpoint the address policy refuses is the config's fault: said as such.
    if (error instanceof GatewayError && error.code !== "provider_auth_failed" && error.code !== "custom_host_refused") {
      throw failed(`the token endpoint could not be reached: ${error.message}`);
    }
    throw error;
  }
}
