/**
 * Provider resolution for one target, in this order: a body `model` of the form
 * `@<provider_slug>/<model_slug>`; the target's (or config's) `provider` as `@slug`; the legacy
 * `virtual_key`; a provider name with the caller's own credential. A slug's credential stays on
 * the server: the caller's `Authorization` is never forwarded with it.
 */
import { createHash } from "node:crypto";
import { ConfigError } from "../../core/index.js";
import { GatewayError } from "../errors.js";
import { FORMATS } from "../formats/index.js";
import type { Endpoint } from "../formats/endpoints.js";
import type { ProviderRecord, ProviderSource, Scope } from "../sources/types.js";
import type { HttpProvider, ResolvedProvider } from "./provider.js";
import { assertServes } from "./send.js";
import { kindOf, knownProviderNames, MOCK_PROVIDER, PROVIDER_CATALOG } from "./catalog.js";
import { checkProviderOptions, configOptionsFor } from "./options.js";

/**
 * The provider settings of a target, after inheritance: the part of the routing's target settings
 * (routing/build.ts extends it) that resolution reads.
 */
export interface TargetProviderSettings {
  provider?: string;
  virtualKey?: string;
  apiKey?: string;
  customHost?: string;
  /** Provider options the config gives (`aws_region`, `api_version`, …): the peer gateway's keys. */
  providerOptions?: Record<string, unknown>;
}

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

/** What resolution yields: the provider and, when the model named a slug, the model to send. */
export interface Resolution {
  provider: ResolvedProvider;
  /** The model with its `@slug/` prefix removed; undefined when the model was not rewritten. */
  model?: string;
}

/** JSON with keys sorted, so two equal option objects fingerprint alike. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function fingerprint(secret: string | undefined): string {
  return secret ? createHash("sha256").update(secret).digest("hex").slice(0, 16) : "-";
}

function checkFormat(provider: HttpProvider, endpoint: Endpoint): HttpProvider {
  assertServes(kindOf(provider.name), endpoint, `"${provider.slug ? `@${provider.slug}` : provider.name}"`);
  return provider;
}

/** Validates a custom host URL and returns it without a trailing slash. */
export function parseCustomHost(value: string, where: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new GatewayError("invalid_custom_host", `${where}: "${value}" is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new GatewayError("invalid_custom_host", `${where}: only http and https URLs are allowed`);
  }
  if (url.username || url.password) {
    throw new GatewayError("invalid_custom_host", `${where}: credentials in the URL are not allowed; send them as headers`);
  }
  return url.href.replace(/\/+$/, "");
}

/** How a target names its provider, in the resolution order, before anything is looked up. */
export interface ProviderNaming {
  /** A provider record's slug, and where it was named (for errors). */
  slug?: string;
  where: string;
  /** A provider named with the caller's own credential. */
  name?: string;
  /** The model with its `@slug/` prefix removed, when the model named the slug. */
  model?: string;
}

/** The provider a target names: its model's `@slug/`, `provider`, `virtual_key`, then a provider name. */
export function providerNaming(settings: TargetProviderSettings, header: HeaderProviderSettings, model: unknown): ProviderNaming {
  if (typeof model === "string" && model.startsWith("@")) {
    const slash = model.indexOf("/");
    if (slash < 2 || slash === model.length - 1) {
      throw new GatewayError("invalid_model", `model: "${model}" must have the form @<provider_slug>/<model_slug>`);
    }
    return { slug: model.slice(1, slash), where: `model "${model}"`, model: model.slice(slash + 1) };
  }
  const provider = settings.provider ?? header.provider;
  if (provider?.startsWith("@")) return { slug: provider.slice(1), where: `provider "${provider}"` };
  const virtualKey = settings.virtualKey ?? header.virtualKey;
  if (virtualKey) return { slug: virtualKey, where: `virtual_key "${virtualKey}"` };
  return { where: "provider", ...(provider !== undefined && { name: provider }) };
}

/** The provider a record defines under a slug, with its credential (`ProviderResolver.bySlug`). */
function providerOf(record: ProviderRecord, slug: string, scope: Scope): ResolvedProvider {
  if (record.provider === MOCK_PROVIDER) return { kind: "mock", name: MOCK_PROVIDER, slug };
  const kind = kindOf(record.provider);
  const format = kind.format;
  const baseUrl = (record.baseUrl ?? kind.baseUrl ?? "").replace(/\/+$/, "");
  const credential = record.apiKey && format ? FORMATS[format].credentialHeaders(record.apiKey) : {};
  const headers = { ...(record.headers ?? {}), ...credential };
  const provider: HttpProvider = {
    kind: "http",
    name: record.provider,
    slug,
    ...(format && { format }),
    options: record.options ?? {},
    baseUrl,
    trusted: record.trusted !== false,
    headers,
    identity: `slug:${slug}|${scope.workspaceId ?? ""}`,
  };
  if (record.apiKey) provider.secret = record.apiKey;
  return provider;
}

/** Resolves providers for targets of one request. */
export class ProviderResolver {
  constructor(private readonly providers: ProviderSource) {}

  async resolve(input: {
    settings: TargetProviderSettings;
    header: HeaderProviderSettings;
    model: unknown;
    endpoint: Endpoint;
    caller: CallerCredentials;
    scope: Scope;
  }): Promise<Resolution> {
    const { settings, header, endpoint } = input;
    const customHost = settings.customHost ?? header.customHost;
    const hostWhere = settings.customHost !== undefined ? "custom_host" : "x-gateway-custom-host";

    const named = providerNaming(settings, header, input.model);
    if (named.slug !== undefined) {
      const provider = await this.#fromSlug(named.slug, named.where, customHost, input);
      return { provider, ...(named.model !== undefined && { model: named.model }) };
    }
    const provider = named.name;
    // A custom host with no provider named is a server of the route's format: OpenAI's for the Responses API.
    const name = provider ?? (customHost ? (endpoint.format === "responses" ? "openai" : endpoint.format) : undefined);
    if (!name) {
      throw new GatewayError(
        "no_provider",
        'no provider: use a model "@<provider_slug>/<model>", a config with "provider", or the x-gateway-provider header',
      );
    }
    if (name === MOCK_PROVIDER) return { provider: { kind: "mock", name: MOCK_PROVIDER } };
    const entry = PROVIDER_CATALOG[name];
    if (!entry) {
      throw new GatewayError(
        "unknown_provider_name",
        `provider "${name}" is not known; use one of ${knownProviderNames().join(", ")}, or "@<slug>" for a provider defined on the gateway`,
      );
    }
    const baseUrl = customHost ? parseCustomHost(customHost, hostWhere) : (entry.baseUrl ?? "");
    const format = entry.format;
    // A credential in the config wins over the caller's. A caller of the other format sends its key
    // as its own SDK does (x-api-key from the Anthropic SDK): it goes on in the provider's header.
    const callerSecret = format
      ? (FORMATS[format].callerSecret(input.caller) ??
        (endpoint.format !== format ? FORMATS[endpoint.format].callerSecret(input.caller) : undefined))
      : undefined;
    const secret = settings.apiKey ?? callerSecret;
    const headers =
      secret && format
        ? FORMATS[format].credentialHeaders(secret)
        : input.caller.authorization && format
          ? { authorization: input.caller.authorization }
          : {};
    const credential = secret ?? input.caller.authorization;
    const options = configOptionsFor(name, settings.providerOptions);
    try {
      checkProviderOptions(name, options, "config");
    } catch (error) {
      if (error instanceof ConfigError) throw new GatewayError(error.code, error.message);
      throw error;
    }
    const resolved: HttpProvider = {
      kind: "http",
      name,
      ...(format && { format }),
      options,
      baseUrl,
      trusted: !customHost,
      headers,
      identity: `name:${name}|${baseUrl}|${fingerprint(credential)}|${fingerprint(stableJson(options))}`,
    };
    // A kind of its own format reads its key from here (Gemini's x-goog-api-key); it is scrubbed from answers either way.
    if (secret) resolved.secret = secret;
    return { provider: checkFormat(resolved, endpoint) };
  }

  /**
   * Providers made from records, by record: a source hands back the same record object until it
   * changes, so its provider (headers, base URL, identity) is made once, not per request. A
   * record read under another slug (a virtual key) or workspace is made again.
   */
  readonly #made = new WeakMap<ProviderRecord, { slug: string; workspaceId: string | undefined; provider: ResolvedProvider }>();

  /** The provider defined with this slug in a scope, with its credential; undefined when none is. */
  async bySlug(slug: string, scope: Scope): Promise<ResolvedProvider | undefined> {
    const record: ProviderRecord | undefined = await this.providers.get(slug, scope);
    if (!record) return slug === MOCK_PROVIDER ? { kind: "mock", name: MOCK_PROVIDER } : undefined;
    const made = this.#made.get(record);
    if (made && made.slug === slug && made.workspaceId === scope.workspaceId) return made.provider;
    const provider = providerOf(record, slug, scope);
    this.#made.set(record, { slug, workspaceId: scope.workspaceId, provider });
    return provider;
  }

  async #fromSlug(
    slug: string,
    where: string,
    customHost: string | undefined,
    input: { endpoint: Endpoint; scope: Scope },
  ): Promise<ResolvedProvider> {
    const provider = await this.bySlug(slug, input.scope);
    if (!provider) throw new GatewayError("unknown_provider", `${where}: no provider with slug "${slug}" is defined`);
    // The built-in mock needs no record and holds no credential to protect.
    if (provider.kind === "mock" && provider.slug === undefined) return provider;
    if (customHost !== undefined) {
      // Pointing a slug elsewhere would send the operator's credential to a host the client chose.
      throw new GatewayError(
        "custom_host_with_slug",
        `${where}: a custom host cannot be combined with a provider slug; the slug's credential only goes to its own base URL`,
      );
    }
    return provider.kind === "mock" ? provider : checkFormat(provider, input.endpoint);
  }
}
