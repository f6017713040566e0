/**
 * Whether a request is in a policy's scope. Every list a scope gives must match: the request's
 * workspace, its API key, its model; an absent or empty list matches every request. Model patterns
 * are written like the model a request names, `@slug/model`, and `*` matches any run of characters
 * (slashes included): `@openai/*` is every model of the `openai` provider, `*mini*` any model with
 * "mini" in its name, `*` every request that names a model.
 */
import type { PolicyScopeRule } from "../sources/types.js";

/** The request a scope is matched against. */
export interface ScopedRequest {
  workspaceId: string;
  apiKeyId: string;
  /** The model as `@slug/model` when the provider is known, else as the request named it. */
  model?: string;
}

/**
 * The model one target of a request calls, as scopes match it: `@slug/model` for a provider
 * reached through a slug however the request named it (model prefix, `provider`, `virtual_key`,
 * their headers, a target, a fallback), with the model sent upstream after `override_params`; the
 * built-in mock is `@mock`. A slug's target with no model is `@slug/`, so `@slug/*` still holds it.
 * A provider named with the caller's own credential has no slug: its model is matched as sent.
 */
export function targetModel(provider: { kind: string; slug?: string }, model: unknown): string | undefined {
  const sent = typeof model === "string" && model !== "" ? model : undefined;
  const slug = provider.slug ?? (provider.kind === "mock" ? "mock" : undefined);
  if (slug !== undefined) return `@${slug}/${sent ?? ""}`;
  return sent;
}

const compiled = new Map<string, RegExp>();

/** A model pattern as an anchored regular expression; only `*` is special. */
function patternRegExp(pattern: string): RegExp {
  let regex = compiled.get(pattern);
  if (!regex) {
    const source = pattern
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
    regex = new RegExp(`^${source}$`, "s");
    if (compiled.size > 10_000) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex;
}

/** Whether a model pattern matches a model name. */
export function modelMatches(pattern: string, model: string): boolean {
  return patternRegExp(pattern).test(model);
}

/** Whether a request is in a scope. */
export function inScope(scope: PolicyScopeRule, request: ScopedRequest): boolean {
  if (scope.workspaces?.length && !scope.workspaces.includes(request.workspaceId)) return false;
  if (scope.api_keys?.length && !scope.api_keys.includes(request.apiKeyId)) return false;
  if (scope.models?.length) {
    const model = request.model;
    if (model === undefined || !scope.models.some((pattern) => modelMatches(pattern, model))) return false;
  }
  return true;
}

/**
 * The model a request names, as scopes match it: `@slug/model` as written, or the config's
 * `@slug` provider joined to a bare model name; a bare name without a provider slug stays bare.
 * The built-in `mock` provider is `@mock`, as `targetModel` has it, so a logged request replays in
 * the scope it was answered in.
 */
export function requestModel(bodyModel: unknown, configProvider: string | undefined): string | undefined {
  if (typeof bodyModel !== "string" || bodyModel === "") return undefined;
  const provider = configProvider === "mock" ? "@mock" : configProvider;
  if (bodyModel.startsWith("@") || provider === undefined || !provider.startsWith("@")) return bodyModel;
  return `${provider}/${bodyModel}`;
}
