/**
 * Provider resolution for one target, in the order of the issue: a body `model` of the form
 * `@<provider_slug>/<model_slug>`; the target's (or config's) `provider` as `@slug`; the legacy
 * `virtual_key`; a provider name with the caller's own credential. A slug's credential stays on
 * the server: the caller's `Authorization` is never forwarded with it.
 */
import { createHash } from "node:crypto";
import { GatewayError } from "../errors.js";
import { FORMATS, type FormatName } from "../formats/index.js";
import type { Endpoint } from "../pipeline/endpoints.js";
import type { TargetSettings } from "../plan/build.js";
import type { ProviderRecord, ProviderSource, Scope } from "../sources/types.js";
import { knownProviderNames, MOCK_PROVIDER, PROVIDER_CATALOG } from "./catalog.js";

/** Provider settings a request may carry in headers; a config's settings take precedence. */
export interface HeaderProviderSettings {
  provider?: string;
  virtualKey?: string;
  customHost?: string;
}

/** The caller's own provider credentials, as sent. */
export interface CallerCredentials {
  authorization?: string;
  apiKey?: string;
}

/** A provider answered by the built-in mock. */
export interface MockProvider {
  kind: "mock";
  name: typeof MOCK_PROVIDER;
  slug?: string;
}

/** A provider reached over HTTP. */
export interface HttpProvider {
  kind: "http";
  name: string;
  slug?: string;
  format: FormatName;
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

/** What resolution yields: the provider and, when the model named a slug, the model to send. */
export interface Resolution {
  provider: ResolvedProvider;
  /** The model with its `@slug/` prefix removed; undefined when the model was not rewritten. */
  model?: string;
}

function fingerprint(secret: string | undefined): string {
  return secret ? createHash("sha256").update(secret).digest("hex").slice(0, 16) : "-";
}

function checkFormat(provider: HttpProvider, endpoint: Endpoint): HttpProvider {
  if (provider.format !== endpoint.format) {
    const wanted = FORMATS[endpoint.format].label;
    throw new GatewayError(
      400,
      "provider_format_mismatch",
      `${endpoint.route} needs ${wanted} provider; "${provider.slug ? `@${provider.slug}` : provider.name}" speaks the ${provider.format} format`,
    );
  }
  return provider;
}

/** Validates a custom host URL and returns it without a trailing slash. */
export function parseCustomHost(value: string, where: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new GatewayError(400, "invalid_custom_host", `${where}: "${value}" is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new GatewayError(400, "invalid_custom_host", `${where}: only http and https URLs are allowed`);
  }
  if (url.username || url.password) {
    throw new GatewayError(400, "invalid_custom_host", `${where}: credentials in the URL are not allowed; send them as headers`);
  }
  return url.href.replace(/\/+$/, "");
}

/** Resolves providers for targets of one request. */
export class ProviderResolver {
  constructor(private readonly providers: ProviderSource) {}

  async resolve(input: {
    settings: TargetSettings;
    header: HeaderProviderSettings;
    model: unknown;
    endpoint: Endpoint;
    caller: CallerCredentials;
    scope: Scope;
  }): Promise<Resolution> {
    const { settings, header, endpoint } = input;
    const customHost = settings.customHost ?? header.customHost;
    const hostWhere = settings.customHost !== undefined ? "custom_host" : "x-gateway-custom-host";

    if (typeof input.model === "string" && input.model.startsWith("@")) {
      const slash = input.model.indexOf("/");
      if (slash < 2 || slash === input.model.length - 1) {
        throw new GatewayError(400, "invalid_model", `model: "${input.model}" must have the form @<provider_slug>/<model_slug>`);
      }
      const slug = input.model.slice(1, slash);
      const provider = await this.#fromSlug(slug, `model "${input.model}"`, customHost, input);
      return { provider, model: input.model.slice(slash + 1) };
    }
    const provider = settings.provider ?? header.provider;
    if (provider?.startsWith("@")) {
      return { provider: await this.#fromSlug(provider.slice(1), `provider "${provider}"`, customHost, input) };
    }
    const virtualKey = settings.virtualKey ?? header.virtualKey;
    if (virtualKey) {
      return { provider: await this.#fromSlug(virtualKey, `virtual_key "${virtualKey}"`, customHost, input) };
    }
    const name = provider ?? (customHost ? endpoint.format : undefined);
    if (!name) {
      throw new GatewayError(
        400,
        "no_provider",
        'no provider: use a model "@<provider_slug>/<model>", a config with "provider", or the x-gateway-provider header',
      );
    }
    if (name === MOCK_PROVIDER) return { provider: { kind: "mock", name: MOCK_PROVIDER } };
    const entry = PROVIDER_CATALOG[name];
    if (!entry) {
      throw new GatewayError(
        400,
        "unknown_provider_name",
        `provider "${name}" is not known; use one of ${knownProviderNames().join(", ")}, or "@<slug>" for a provider defined on the gateway`,
      );
    }
    const baseUrl = customHost ? parseCustomHost(customHost, hostWhere) : entry.baseUrl;
    // A credential in the config wins over the caller's.
    const secret = settings.apiKey ?? FORMATS[entry.format].callerSecret(input.caller);
    const headers = secret
      ? FORMATS[entry.format].credentialHeaders(secret)
      : input.caller.authorization
        ? { authorization: input.caller.authorization }
        : {};
    const credential = secret ?? input.caller.authorization;
    return {
      provider: checkFormat(
        {
          kind: "http",
          name,
          format: entry.format,
          baseUrl,
          trusted: !customHost,
          headers,
          identity: `name:${name}|${baseUrl}|${fingerprint(credential)}`,
        },
        endpoint,
      ),
    };
  }

  async #fromSlug(
    slug: string,
    where: string,
    customHost: string | undefined,
    input: { endpoint: Endpoint; scope: Scope },
  ): Promise<ResolvedProvider> {
    const record: ProviderRecord | undefined = await this.providers.get(slug, input.scope);
    if (!record) {
      if (slug === MOCK_PROVIDER) return { kind: "mock", name: MOCK_PROVIDER };
      throw new GatewayError(404, "unknown_provider", `${where}: no provider with slug "${slug}" is defined`);
    }
    if (customHost !== undefined) {
      // Pointing a slug elsewhere would send the operator's credential to a host the client chose.
      throw new GatewayError(
        400,
        "custom_host_with_slug",
        `${where}: a custom host cannot be combined with a provider slug; the slug's credential only goes to its own base URL`,
      );
    }
    if (record.provider === MOCK_PROVIDER) return { kind: "mock", name: MOCK_PROVIDER, slug };
    const entry = PROVIDER_CATALOG[record.provider];
    const format = entry?.format ?? "openai";
    const baseUrl = (record.baseUrl ?? entry?.baseUrl ?? "").replace(/\/+$/, "");
    const headers = { ...(record.headers ?? {}), ...(record.apiKey ? FORMATS[format].credentialHeaders(record.apiKey) : {}) };
    const provider: HttpProvider = {
      kind: "http",
      name: record.provider,
      slug,
      format,
      baseUrl,
      trusted: record.trusted !== false,
      headers,
      identity: `slug:${slug}|${input.scope.workspaceId ?? ""}`,
    };
    if (record.apiKey) provider.secret = record.apiKey;
    return checkFormat(provider, input.endpoint);
  }
}
