/**
 * Model references as the gateway accepts them: a plain model (`gpt-4o`) or a provider-addressed
 * one (`@openai/gpt-4o`, spec §2.6). Lists of models in check parameters may use either form.
 */
import type { CheckContext } from "../../../core/index.js";

/** A model reference split into its provider (when known) and model slug. */
export interface ModelReference {
  /** The reference as given. */
  reference: string;
  provider?: string;
  model: string;
}

/** Splits `@provider/model` into its parts; a plain model takes `provider` when one is given. */
export function parseModelReference(reference: string, provider?: string): ModelReference {
  const slash = reference.indexOf("/");
  if (reference.startsWith("@") && slash > 1 && slash < reference.length - 1) {
    return { reference, provider: reference.slice(1, slash), model: reference.slice(slash + 1) };
  }
  return provider ? { reference, provider, model: reference } : { reference, model: reference };
}

/** The model a request asks for: the resolved model of the context, else the body's `model`. */
export function requestedModel(context: CheckContext): ModelReference | undefined {
  const body = context.request as { model?: unknown } | null | undefined;
  const reference = context.model ?? (typeof body?.model === "string" ? body.model : undefined);
  if (reference === undefined || reference === "") return undefined;
  return parseModelReference(reference, context.provider);
}

/**
 * Whether a list entry names the requested model. Comparison ignores case. A plain entry
 * (`gpt-4o`) matches that model from any provider; a provider-addressed entry (`@openai/gpt-4o`)
 * matches only that provider's model.
 */
export function entryMatches(entry: string, requested: ModelReference): boolean {
  const wanted = parseModelReference(entry);
  if (wanted.model.toLowerCase() !== requested.model.toLowerCase()) return false;
  if (wanted.provider === undefined) return true;
  return requested.provider !== undefined && wanted.provider.toLowerCase() === requested.provider.toLowerCase();
}

/** The entries of `list` that name the requested model. */
export function matchingEntries(list: readonly string[], requested: ModelReference): string[] {
  return list.filter((entry) => entryMatches(entry, requested));
}
