/**
 * The guarded inference endpoints (spec §4), as the formats declare them: the request type
 * the engine knows them by, the wire format they speak, and the path appended to a provider's
 * base URL.
 */
import type { RequestType } from "../../core/index.js";
import { FORMAT_LIST, type FormatName } from "./index.js";

/** One inference endpoint. */
export interface Endpoint {
  route: string;
  /** Appended to the provider's base URL, which ends with the version segment. */
  upstreamPath: string;
  requestType: RequestType;
  format: FormatName;
  /** The envelope errors are written in: the format's own (errors.ts's `ErrorStyle` is a format name). */
  errorStyle: FormatName;
}

export const ENDPOINTS: readonly Endpoint[] = FORMAT_LIST.flatMap((format) =>
  format.endpoints.map((endpoint) => ({ ...endpoint, format: format.name, errorStyle: format.name })),
);

/** The endpoint served at `route`; throws for a route no format declares. */
export function endpointAt(route: string): Endpoint {
  const endpoint = ENDPOINTS.find((e) => e.route === route);
  if (!endpoint) throw new Error(`no format declares the route ${route}`);
  return endpoint;
}
