/**
 * Whether a request is in a policy's scope. Every list a scope gives must match: the request's
 * workspace, its API key, its model; an absent or empty list matches every request. Model patterns
 * are written like the names a target answers to (`@slug/model`, `kind:model`), and `*` matches any
 * run of characters (slashes included): `@openai/*` is every model of the `openai` provider record,
 * `azure-openai:*` every Azure OpenAI call, `*mini*` any model with "mini" in its name, `*` every
 * request that names a model. A target is matched as it is called, canonical
 * (providers/canonical-target.ts), never on the string the client wrote alone.
 */
import type { CanonicalTarget } from "../providers/canonical-target.js";
import type { PolicyScopeRule } from "../sources/types.js";

/** The request a scope is matched against. */
export interface ScopedRequest {
  workspaceId: string;
  apiKeyId: string;
  /**
   * The targets the request calls, canonical (providers/canonical-target.ts); a request is in a
   * model scope when any of them is (a hook evaluation may be for any target of its config).
   */
  targets?: readonly CanonicalTarget[];
  /** A logged request's model, `@slug/model` or as sent, when its target is not known (replay). */
  model?: string;
  /** Set for tool traffic: the MCP server and the tool (absent for a request that names no tool, such as resources/read). */
  tool?: { server: string; name?: string };
}

/**
 * The names a canonical target answers to in a scope's `models` patterns: the provider record's
 * `@slug/model` (the built-in mock is `@mock/model`), else the model as sent for a provider named
 * with the caller's own credential; and `kind:model` for its provider kind, however it was reached.
 * Each is written for the canonical model and for every alias (as written, the deployment, the
 * profile). A slug's target with no model is `@slug/`, so `@slug/*` still holds it.
 */
export function targetNames(target: CanonicalTarget): string[] {
  const models = target.model === undefined ? [] : [target.model, ...target.aliases];
  const slug = target.slug ?? (target.kind === "mock" ? "mock" : undefined);
  const names: string[] = [];
  if (slug !== undefined) {
    if (!models.length) names.push(`@${slug}/`);
    for (const model of models) names.push(`@${slug}/${model}`);
  } else {
    names.push(...models);
  }
  // A hook call may name no provider at all: its kind is unknown ("").
  if (target.kind !== "") for (const model of models) names.push(`${target.kind}:${model}`);
  return names;
}

/** The prefixes under which any model of an opaque target could be named, for `mayMatchUnder`. */
function opaquePrefixes(target: CanonicalTarget): string[] {
  const slug = target.slug ?? (target.kind === "mock" ? "mock" : undefined);
  return [slug !== undefined ? `@${slug}/` : "", ...(target.kind !== "" ? [`${target.kind}:`] : [])];
}

/** What decides a request's scope beside its workspace and key, as a cache key. */
export function scopeKey(request: ScopedRequest): string {
  if (request.tool) return `x\0${request.tool.server}\0${request.tool.name ?? ""}`;
  if (!request.targets) return `m\0${request.model ?? ""}`;
  return request.targets.map((target) => `${target.opaque ? "o" : "t"}\0${targetNames(target).join("\0")}`).join("\u0001");
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
    regex = new RegExp(`^${source}$`, "is");
    if (compiled.size > 10_000) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex;
}

/** Whether a model pattern matches a model name; letters match in either case. */
export function modelMatches(pattern: string, model: string): boolean {
  return patternRegExp(pattern).test(model);
}

/**
 * Whether a pattern matches some name that begins with `prefix`: the model after it is unknown
 * (an opaque target), so a pattern that could name any model there holds it, failing closed.
 */
export function mayMatchUnder(pattern: string, prefix: string): boolean {
  const star = pattern.indexOf("*");
  const head = (star < 0 ? pattern : pattern.slice(0, star)).toLowerCase();
  const lower = prefix.toLowerCase();
  return head.startsWith(lower) || (star >= 0 && lower.startsWith(head));
}

/** Whether one target is held by a list of model patterns. */
function targetInScope(patterns: readonly string[], target: CanonicalTarget): boolean {
  const names = targetNames(target);
  if (patterns.some((pattern) => names.some((name) => modelMatches(pattern, name)))) return true;
  if (!target.opaque) return false;
  const prefixes = opaquePrefixes(target);
  return patterns.some((pattern) => prefixes.some((prefix) => mayMatchUnder(pattern, prefix)));
}

const casedPatterns = new Map<string, RegExp>();

/** Whether a server or tool name pattern matches: as `modelMatches`, but letters match in their case (MCP names are case-sensitive). */
export function toolNameMatches(pattern: string, name: string): boolean {
  if (!pattern.includes("*")) return pattern === name;
  let regex = casedPatterns.get(pattern);
  if (!regex) {
    regex = new RegExp(patternRegExp(pattern).source, "s");
    if (casedPatterns.size > 10_000) casedPatterns.clear();
    casedPatterns.set(pattern, regex);
  }
  return regex.test(name);
}

/**
 * Whether tool traffic is in a scope: only a scope naming MCP servers or tools holds it, and each
 * list given must hold the server and the tool; a scope naming models never does.
 */
function toolInScope(scope: PolicyScopeRule, tool: { server: string; name?: string }): boolean {
  if (!scope.mcp_servers?.length && !scope.tools?.length) return false;
  if (scope.models?.length) return false;
  if (scope.mcp_servers?.length && !scope.mcp_servers.some((pattern) => toolNameMatches(pattern, tool.server))) return false;
  const name = tool.name;
  // A scope naming tools holds only traffic of a named tool (a tools/call); resources and prompts have none.
  if (scope.tools?.length && (name === undefined || !scope.tools.some((pattern) => toolNameMatches(pattern, name)))) return false;
  return true;
}

/** Whether a request is in a scope. */
export function inScope(scope: PolicyScopeRule, request: ScopedRequest): boolean {
  if (scope.workspaces?.length && !scope.workspaces.includes(request.workspaceId)) return false;
  if (scope.api_keys?.length && !scope.api_keys.includes(request.apiKeyId)) return false;
  if (request.tool) return toolInScope(scope, request.tool);
  // Model traffic is never held by a scope written for tool traffic.
  if (scope.mcp_servers?.length || scope.tools?.length) return false;
  const patterns = scope.models;
  if (patterns?.length) {
    if (request.targets) return request.targets.some((target) => targetInScope(patterns, target));
    const model = request.model;
    if (model === undefined || !patterns.some((pattern) => modelMatches(pattern, model))) return false;
  }
  return true;
}

/**
 * The model a request names, as scopes match it: `@slug/model` as written, or the config's
 * `@slug` provider joined to a bare model name; a bare name without a provider slug stays bare.
 * The built-in `mock` provider is `@mock`, as `targetNames` has it, so a logged request replays in
 * the scope it was answered in.
 */
export function requestModel(bodyModel: unknown, configProvider: string | undefined): string | undefined {
  if (typeof bodyModel !== "string" || bodyModel === "") return undefined;
  const provider = configProvider === "mock" ? "@mock" : configProvider;
  if (bodyModel.startsWith("@") || provider === undefined || !provider.startsWith("@")) return bodyModel;
  return `${provider}/${bodyModel}`;
}
