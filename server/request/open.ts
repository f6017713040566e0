/**
 * Intake of an inference request: its context built once, in two steps. `open` takes what cannot
 * refuse it (id, caller, endpoint, body, abort signal), so a request refused later still has a
 * context to be recorded with; `read` reads the rest, each step able to refuse with a 400 naming
 * what was wrong: the body's shape (before any guardrail judges a field that is not there), the
 * gateway headers, the routing, the metadata.
 */
import type { IncomingHttpHeaders } from "node:http";
import { isObject } from "../../core/internal.js";
import { GatewayError } from "../errors.js";
import type { Endpoint } from "../formats/endpoints.js";
import { HEADER, headerValue } from "../gateway-headers.js";
import type { RequestContext } from "./context.js";
import { EMPTY_ROUTING } from "../routing/build.js";
import type { RoutingResolver } from "../routing/resolver.js";
import type { ApiKeyIdentity } from "../sources/types.js";
import { callerCredentials, headerProviderSettings, NO_CALLER, NO_HEADER_PROVIDER, strictCompliance } from "./headers.js";
import { metadataHeader } from "./metadata.js";
import { assertRequestShape } from "./request-shape.js";

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
   */
  async read(ctx: RequestContext, body: unknown): Promise<RequestContext> {
    if (!isObject(body)) throw new GatewayError("invalid_request", "the body must be a JSON object");
    assertRequestShape(ctx.endpoint.requestType, ctx.body);
    const headers = ctx.headers;
    const strict = strictCompliance(headers);
    const headerProvider = headerProviderSettings(headers);
    const caller = callerCredentials(headers);
    // Policies are added per target by the pipeline, once each target's provider and model are known.
    const config = headerValue(headers, HEADER.config);
    // Without the header the opened context's empty routing stands, with no wait for it.
    const routing =
      config === undefined ? ctx.routing : await this.routing.resolve(config, { workspaceId: ctx.identity.workspaceId });
    const metadata = metadataHeader(headerValue(headers, HEADER.metadata));
    return { ...ctx, strict, headerProvider, caller, routing, metadata };
  }
}
