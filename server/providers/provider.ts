/**
 * A provider as resolution (resolve.ts) yields it for one target: the built-in mock, or a service
 * reached over HTTP with its URL, credential and the settings of its kind.
 */
import type { FormatName } from "../formats/index.js";

/** A provider answered by the built-in mock. */
export interface MockProvider {
  kind: "mock";
  /** The catalog's `MOCK_PROVIDER`. */
  name: "mock";
  slug?: string;
}

/** A provider reached over HTTP. */
export interface HttpProvider {
  kind: "http";
  name: string;
  slug?: string;
  /** The format it speaks natively, when it is one guardgate serves (kind.ts); none for Bedrock or Gemini. */
  format?: FormatName;
  /** The kind's settings (`aws_region`, `api_version`, …), from the provider record or the config. */
  options: Record<string, unknown>;
  /** Base URL with the version segment and no trailing slash. */
  baseUrl: string;
  /**
   * Whether the operator chose this URL (catalog, provider record). A URL a client chose goes
   * through the custom-host address policy.
   */
  trusted: boolean;
  /** Credential and extra headers sent upstream. */
  headers: Record<string, string>;
  /** The operator's secret, scrubbed from anything the upstream sends back. */
  secret?: string;
  /** Identifies provider, URL and credential for the response cache, without holding the secret. */
  identity: string;
}

export type ResolvedProvider = MockProvider | HttpProvider;
