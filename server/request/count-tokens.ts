/**
 * `POST /v1/messages/count_tokens`: Anthropic's token count of a Messages request, passed through
 * to the provider a `/v1/messages` request with the same model and config would reach. It is not
 * an inference request: no guardrail reads it, nothing is answered by a model, and it writes no
 * request log record. What holds on `/v1/messages` holds here: the provider is resolved the same
 * way (the model's `@slug/`, the config's first target, the gateway headers), the same credential
 * headers go upstream, and the request gate admits it (the provider's model allow-list, the rate
 * limits and budgets; it counts as a request and costs no tokens). A provider whose kind has no
 * such endpoint (every kind but Anthropic's format, and the mock) is a 400 naming it.
 */
import type { IncomingHttpHeaders } from "node:http";
import { GatewayError } from "../errors.js";
import type { Endpoint } from "../formats/endpoints.js";
import type { Routing, RoutingNode } from "../routing/build.js";
import type { RequestGate } from "../request-gate.js";
import { translationOf } from "../providers/send.js";
import { kindOf } from "../providers/catalog.js";
import type { CallerCredentials, HeaderProviderSettings, ProviderResolver } from "../providers/resolve.js";
import type { ApiKeyIdentity } from "../sources/types.js";
import type { UpstreamClient } from "../upstream/client.js";
import { passedBackHeaders, upstreamHeaders } from "./target-call.js";

/** The route, as an endpoint of the Anthropic format: resolution and the error envelope read it. */
export const COUNT_TOKENS_ENDPOINT: Endpoint = {
  route: "/v1/messages/count_tokens",
  upstreamPath: "/messages/count_tokens",
  requestType: "messages",
  format: "anthropic",
  errorStyle: "anthropic",
};

/** One count request, as the route read it. */
export interface TokenCountRequest {
  identity: ApiKeyIdentity;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  routing: Routing;
  headerProvider: HeaderProviderSettings;
  caller: CallerCredentials;
  signal: AbortSignal;
}

/** The provider's answer, passed back as it came (its secrets cut by the upstream client). */
export interface TokenCountAnswer {
  status: number;
  headers: Record<string, string>;
  contentType: string;
  body: string;
}

/** What counting needs of the gateway. */
export interface TokenCounterDeps {
  providers: ProviderResolver;
  upstream: Pick<UpstreamClient, "send">;
  gate?: RequestGate;
}

/** The target a count goes to: a config's first target, followed down (a count does not fall back). */
function firstTarget(node: RoutingNode): RoutingNode {
  let at = node;
  while (at.targets?.length) at = at.targets[0] as RoutingNode;
  return at;
}

/** Counts tokens through the provider a Messages request would reach. */
export class TokenCounter {
  constructor(private readonly deps: TokenCounterDeps) {}

  /** The provider's answer to the count, or a GatewayError refusing it. */
  async count(request: TokenCountRequest): Promise<TokenCountAnswer> {
    const target = firstTarget(request.routing.root);
    // Of the target's override_params only the model applies: the count takes no sampling fields.
    const override = target.settings.overrideParams.model;
    let body = override === undefined ? request.body : { ...request.body, model: override };
    const { provider, model } = await this.deps.providers.resolve({
      settings: target.settings,
      header: request.headerProvider,
      model: body.model,
      endpoint: COUNT_TOKENS_ENDPOINT,
      caller: request.caller,
      scope: { workspaceId: request.identity.workspaceId },
    });
    if (model !== undefined) body = { ...body, model };
    const label = provider.slug ? `provider "@${provider.slug}" (${provider.name})` : `provider "${provider.name}"`;
    if (provider.kind === "mock" || translationOf(kindOf(provider.name), COUNT_TOKENS_ENDPOINT) !== "none") {
      throw new GatewayError(
        "provider_format_mismatch",
        `${COUNT_TOKENS_ENDPOINT.route} cannot reach ${label}: only providers of the Anthropic format count tokens; send the request to /v1/messages, or count with a provider of that format`,
      );
    }
    await this.deps.gate?.admit({
      identity: request.identity,
      provider,
      model: typeof body.model === "string" ? body.model : undefined,
      requestType: COUNT_TOKENS_ENDPOINT.requestType,
    });
    const response = await this.deps.upstream.send({
      url: `${provider.baseUrl}${COUNT_TOKENS_ENDPOINT.upstreamPath}`,
      headers: upstreamHeaders(request.headers, provider, false),
      body: JSON.stringify(body),
      trusted: provider.trusted,
      ...(target.settings.requestTimeoutMs !== undefined && { timeoutMs: target.settings.requestTimeoutMs }),
      signal: request.signal,
    });
    return {
      status: response.status,
      headers: passedBackHeaders(response.headers),
      contentType: response.contentType || "application/json",
      body: await response.text(),
    };
  }
}
