/**
 * The four guarded inference endpoints (spec §4): the request type the engine knows them by, the
 * wire format they speak, and the path appended to a provider's base URL.
 */
import type { RequestType } from "../../core/index.js";
import type { ErrorStyle } from "../errors.js";
import type { WireFormat } from "../providers/catalog.js";

/** One inference endpoint. */
export interface Endpoint {
  route: string;
  /** Appended to the provider's base URL, which ends with the version segment. */
  upstreamPath: string;
  requestType: RequestType;
  format: WireFormat;
  errorStyle: ErrorStyle;
}

export const ENDPOINTS: readonly Endpoint[] = [
  {
    route: "/v1/chat/completions",
    upstreamPath: "/chat/completions",
    requestType: "chatComplete",
    format: "openai",
    errorStyle: "openai",
  },
  { route: "/v1/completions", upstreamPath: "/completions", requestType: "complete", format: "openai", errorStyle: "openai" },
  { route: "/v1/embeddings", upstreamPath: "/embeddings", requestType: "embed", format: "openai", errorStyle: "openai" },
  { route: "/v1/messages", upstreamPath: "/messages", requestType: "messages", format: "anthropic", errorStyle: "anthropic" },
];
