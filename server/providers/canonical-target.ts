/**
 * What one target calls, named once whatever the spelling: the provider kind, the provider record
 * (its slug), the Azure deployment addressed, and the model with the provider's own prefixes
 * stripped and its aliases resolved. Policy scopes are matched on this, so that two spellings of
 * one call can never fall on different sides of a scope.
 *
 * The rules, one per kind (docs/policies.md, "Scope and the wildcard rule"):
 * - Gemini API and Vertex AI: `models/`, `publishers/google/models/` and
 *   `projects/{p}/locations/{l}/publishers/google/models/` name the model after them, as the
 *   call sends it;
 * - Azure OpenAI: the deployment `azure_deployments` maps the model to, else `deployment_id`,
 *   else the model (the kind's own rule, kinds/azure/target.ts), is what is called;
 * - Amazon Bedrock: a cross-region inference profile (`us.anthropic.claude-…`) and the ARN of a
 *   foundation model or of such a profile name the model id inside; any other ARN (an application
 *   inference profile, provisioned throughput, a custom or imported model) cannot be resolved here
 *   and is `opaque`;
 * - OpenAI: a fine-tune `ft:{base}:…` is also named by its base model.
 */
import type { Json } from "./kind.js";
import { azureDeploymentFor } from "./kinds/azure/target.js";

/** One target as policy scopes see it. */
export interface CanonicalTarget {
  /** The provider kind (`openai`, `azure-openai`, `bedrock`, `google`, `vertex-ai`, `mock`, …). */
  kind: string;
  /** The provider record's slug, when the target reached its provider through one. */
  slug?: string;
  /** The model called, canonical; undefined when the target names none. */
  model?: string;
  /** Every other name of the same call: as written, the profile, the deployment, a fine-tune's base. */
  aliases: string[];
  /** Whether the model cannot be known from its name (a Bedrock application inference profile ARN). */
  opaque: boolean;
}

/** The provider of a target, as resolution gave it (a mock or an HTTP provider). */
export interface TargetProvider {
  kind: "mock" | "http";
  name: string;
  slug?: string;
  options?: Json;
}

/** Gemini's and Vertex AI's resource prefixes before a Google model id. */
const GOOGLE_PREFIX = /^(?:projects\/[^/]+\/locations\/[^/]+\/)?(?:publishers\/google\/)?models\//;

/** Geographies of Bedrock's system-defined cross-region inference profiles (`us.`, `eu.`, …). */
const BEDROCK_GEO = /^(?:us|eu|apac|us-gov|jp|au|ca|global)\.(?=[a-z0-9-]+\.)/;

/** A Bedrock ARN: partition, region, account, resource type and id. */
const BEDROCK_ARN = /^arn:aws(?:-[a-z-]+)?:bedrock:[a-z0-9-]*:\d*:([a-z-]+)\/(.+)$/;

/** The model id a Google model name calls: the name without the API's resource prefixes. */
export function googleModelId(name: string): string {
  return name.replace(GOOGLE_PREFIX, "");
}

/** The model a Bedrock name calls and what else names it; `opaque` when only AWS could say. */
function bedrockModel(name: string): { model: string; aliases: string[]; opaque: boolean } {
  const aliases: string[] = [];
  let id = name;
  const arn = BEDROCK_ARN.exec(name);
  if (arn) {
    const [, type, resource] = arn as unknown as [string, string, string];
    if (type !== "foundation-model" && type !== "inference-profile") return { model: name, aliases, opaque: true };
    id = resource;
    aliases.push(id);
  }
  const model = id.replace(BEDROCK_GEO, "");
  return { model, aliases, opaque: false };
}

/** The canonical model of a name for a provider kind, and the other names of the same call. */
export function canonicalModel(kind: string, name: string, options: Json = {}): Omit<CanonicalTarget, "kind" | "slug"> {
  switch (kind) {
    case "google":
    case "vertex-ai":
      return { model: googleModelId(name), aliases: [name], opaque: false };
    case "azure-openai": {
      const deployment = azureDeploymentFor(options, name);
      return { model: deployment ?? name, aliases: [name], opaque: false };
    }
    case "bedrock": {
      const { model, aliases, opaque } = bedrockModel(name);
      return { model, aliases: [name, ...aliases], opaque };
    }
    case "openai": {
      const base = /^ft:([^:]+):/.exec(name)?.[1];
      return { model: name, aliases: base ? [base] : [], opaque: false };
    }
    default:
      return { model: name, aliases: [], opaque: false };
  }
}

/** The canonical target of a provider and the model sent to it (after `override_params` and the slug's removal). */
export function canonicalTarget(provider: TargetProvider, model: unknown): CanonicalTarget {
  const kind = provider.kind === "mock" ? "mock" : provider.name;
  const base = { kind, ...(provider.slug !== undefined && { slug: provider.slug }) };
  if (typeof model !== "string" || model === "") {
    // Azure's `deployment_id` is called even when the request names no model.
    const deployment = kind === "azure-openai" ? azureDeploymentFor(provider.options ?? {}, undefined) : undefined;
    return { ...base, ...(deployment !== undefined && { model: deployment }), aliases: [], opaque: false };
  }
  const canonical = canonicalModel(kind, model, provider.options);
  const aliases = [...new Set(canonical.aliases)].filter((alias) => alias !== canonical.model && alias !== "");
  return { ...base, ...canonical, aliases };
}
