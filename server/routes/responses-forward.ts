/**
 * The Responses API's id routes for responses guardgate did not keep: a response that passed
 * through to OpenAI or Azure OpenAI is the provider's, so a read, delete, cancel or input-item
 * listing of an id the gateway has not stored goes to the provider the request's gateway headers
 * resolve (config, provider, custom host, the caller's own key), as `POST /v1/responses` would
 * reach it, and the provider's answer comes back as it gave it.
 */
import type { FastifyRequest } from "fastify";
import { upstreamHeaders, passedBackHeaders } from "../request/target-call.js";
import { endpointAt } from "../formats/endpoints.js";
import { HEADER, headerValue } from "../gateway-headers.js";
import { callerCredentials, headerProviderSettings } from "../request/open.js";
import type { RoutingNode } from "../routing/build.js";
import type { RoutingResolver } from "../routing/resolver.js";
import type { IdRoute, ProviderCall } from "../providers/kind.js";
import { sendCall, translationOf } from "../providers/send.js";
import { kindOf } from "../providers/catalog.js";
import { scrubSecrets } from "../providers/options.js";
import type { ProviderResolver } from "../providers/resolve.js";
import type { UpstreamClient } from "../upstream/client.js";

/** The provider's answer to an id route. */
export interface ForwardedAnswer {
  status: number;
  headers: Record<string, string>;
  contentType: string;
  body: string;
}

/** What forwarding needs of the gateway. */
export interface ResponsesForwardDeps {
  routing: RoutingResolver;
  providers: ProviderResolver;
  upstream: UpstreamClient;
}

const RESPONSES = endpointAt("/v1/responses");

/** The first target a routing would call: fallbacks and load balancing start there. */
function firstTarget(node: RoutingNode): RoutingNode {
  return node.targets?.length ? firstTarget(node.targets[0] as RoutingNode) : node;
}

/**
 * Sends an id route to the provider the request resolves, when that provider keeps responses
 * itself (a Responses passthrough); undefined when the request names none, or one reached
 * through chat, whose responses only the gateway could have kept.
 */
export async function forwardIdRoute(
  deps: ResponsesForwardDeps,
  request: FastifyRequest,
  workspaceId: string,
  route: IdRoute,
): Promise<ForwardedAnswer | undefined> {
  const headers = request.headers;
  const scope = { workspaceId };
  const routing = await deps.routing.resolve(headerValue(headers, HEADER.config), scope);
  const settings = firstTarget(routing.root).settings;
  const header = headerProviderSettings(headers);
  // Nothing names a provider: there is nowhere else the response could be.
  if (
    !settings.provider &&
    !settings.virtualKey &&
    !settings.customHost &&
    !header.provider &&
    !header.virtualKey &&
    !header.customHost
  ) {
    return undefined;
  }
  const { provider } = await deps.providers.resolve({
    settings,
    header,
    model: undefined,
    endpoint: RESPONSES,
    caller: callerCredentials(headers),
    scope,
  });
  if (provider.kind !== "http") return undefined;
  const kind = kindOf(provider.name);
  if (translationOf(kind, RESPONSES) !== "none") return undefined;
  const call: ProviderCall = {
    endpoint: RESPONSES,
    body: {},
    text: "",
    stream: false,
    headers: upstreamHeaders(headers, provider, false),
    provider,
    dropParams: false,
    idRoute: route,
    ...(settings.requestTimeoutMs !== undefined && { timeoutMs: settings.requestTimeoutMs }),
  };
  const response = await sendCall(kind, deps.upstream, call);
  return {
    status: response.status,
    headers: passedBackHeaders(response.headers),
    contentType: response.contentType || "application/json",
    body: scrubSecrets(await response.text(), provider),
  };
}
