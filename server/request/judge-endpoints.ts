/**
 * Where the phase's LLM-judge checks reach their judges: each provider slug their parameters name
 * (`model: "@slug/model"` or `provider: "@slug"`) resolved, as the gateway resolves a request's,
 * to its wire format, base URL and credential headers. They travel with the phase as the `model`
 * plugin's credentials (`judges`), so a check in a worker thread can call the judge without the
 * server, and only the providers a phase uses leave the server's memory. The client's own
 * credentials never enter: a slug's credential comes from its provider record only.
 */
import { kindOf } from "../providers/catalog.js";
import type { ProviderResolver } from "../providers/resolve.js";
import type { PluginCredentialMap, Scope } from "../sources/types.js";
import { type Guardrail } from "../../core/index.js";

/** The check whose parameters name judges, and the plugin whose credentials carry them. */
const JUDGE_CHECK = "model.llmJudge";
const JUDGE_PLUGIN = "model";
/** A check that may escalate to a judge: its `escalate.llmJudge` names one as the judge check does. */
const ESCALATING_CHECK = "model.promptInjection";

/** A judge endpoint as the check reads it (plugins/model/shared/judge-wire.ts). */
interface JudgeEndpoint {
  format: "openai" | "anthropic";
  base_url: string;
  headers: Record<string, string>;
}

/** Provider slugs named by a list's judge checks; lists are prepared once per config, so this is worked out once. */
const slugsOfList = new WeakMap<readonly Guardrail[], readonly string[]>();

function slugOf(value: unknown, withModel: boolean): string | undefined {
  if (typeof value !== "string" || !value.startsWith("@")) return undefined;
  const end = withModel ? value.indexOf("/") : value.length;
  return end > 1 ? value.slice(1, end) : undefined;
}

function judgeSlugs(guardrails: readonly Guardrail[]): readonly string[] {
  let slugs = slugsOfList.get(guardrails);
  if (!slugs) {
    const found = new Set<string>();
    for (const guardrail of guardrails) {
      for (const check of guardrail.checks) {
        if (!check.enabled) continue;
        const named =
          check.id === JUDGE_CHECK
            ? check.parameters
            : check.id === ESCALATING_CHECK
              ? ((check.parameters.escalate as { llmJudge?: Record<string, unknown> } | undefined)?.llmJudge ?? {})
              : {};
        const slug = slugOf(named.model, true) ?? slugOf(named.provider, false);
        if (slug) found.add(slug);
      }
    }
    slugs = [...found];
    slugsOfList.set(guardrails, slugs);
  }
  return slugs;
}

/** Whether a list's judge checks name providers whose endpoints must be looked up; worked out once per list. */
export function namesJudges(providers: ProviderResolver | undefined, guardrails: readonly Guardrail[]): boolean {
  return providers !== undefined && judgeSlugs(guardrails).length > 0;
}

/**
 * The phase's credentials with the judge endpoints its judge checks need added under the `model`
 * plugin; unchanged when no judge check names a provider defined in the scope.
 */
export async function withJudgeEndpoints(
  providers: ProviderResolver | undefined,
  scope: Scope,
  guardrails: readonly Guardrail[],
  credentials: PluginCredentialMap | undefined,
): Promise<PluginCredentialMap | undefined> {
  const slugs = providers ? judgeSlugs(guardrails) : [];
  if (!providers || slugs.length === 0) return credentials;
  const judges: Record<string, JudgeEndpoint> = {};
  for (const slug of slugs) {
    const provider = await providers.bySlug(slug, scope);
    // The mock answers requests, not judgements, and the judge speaks the OpenAI or Anthropic API
    // at a base URL: a kind that builds its URLs (Azure) or has a format of its own (Bedrock)
    // is not one. The check reports the missing endpoint.
    if (provider?.kind !== "http" || !provider.format || provider.format === "responses" || kindOf(provider.name).passthrough)
      continue;
    judges[slug] = { format: provider.format, base_url: provider.baseUrl, headers: provider.headers };
  }
  if (Object.keys(judges).length === 0) return credentials;
  return { ...credentials, [JUDGE_PLUGIN]: { ...credentials?.[JUDGE_PLUGIN], judges } };
}
