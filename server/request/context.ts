/**
 * What the pipeline knows of one inference request before its targets are tried. The open stage
 * (`open.ts`) makes it in two steps, each a new value: what cannot refuse the request, then what
 * was read of it. Nothing below writes to it: each stage returns what it produced.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Routing } from "../routing/build.js";
import type { CallerCredentials, HeaderProviderSettings } from "../providers/resolve.js";
import type { ApiKeyIdentity } from "../sources/types.js";
import type { Endpoint } from "../formats/endpoints.js";

/** Everything known about a request before its targets are tried. */
export interface RequestContext {
  /** The HTTP request's own id: the access line, the answer's header and the log record share it. */
  readonly id: string;
  /** When intake began, from `performance.now()`. */
  readonly started: number;
  readonly endpoint: Endpoint;
  readonly identity: ApiKeyIdentity;
  readonly body: Record<string, unknown>;
  readonly stream: boolean;
  readonly strict: boolean;
  readonly metadata: Record<string, string>;
  readonly headers: IncomingHttpHeaders;
  readonly headerProvider: HeaderProviderSettings;
  readonly caller: CallerCredentials;
  readonly routing: Routing;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
}
