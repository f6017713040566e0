/**
 * The price table budgets are counted with: currency units (US dollars in the defaults) per million
 * tokens, by provider kind and model. The defaults are the providers' list prices when written;
 * an integration's `pricing` overrides or extends them. A dated model name (`gpt-4o-2024-08-06`)
 * is priced as its base name; `*` prices every model of a kind (the mock provider is free).
 */
import type { ModelPrice } from "../store/types.js";

/** Prices by provider kind, then model. */
export type PriceTable = Readonly<Record<string, Readonly<Record<string, ModelPrice>>>>;

export const DEFAULT_PRICES: PriceTable = {
  openai: {
    "gpt-4o": { input: 2.5, output: 10 },
    "gpt-4o-mini": { input: 0.15, output: 0.6 },
    "gpt-4.1": { input: 2, output: 8 },
    "gpt-4.1-mini": { input: 0.4, output: 1.6 },
    "gpt-4.1-nano": { input: 0.1, output: 0.4 },
    "o3-mini": { input: 1.1, output: 4.4 },
    "text-embedding-3-small": { input: 0.02, output: 0 },
    "text-embedding-3-large": { input: 0.13, output: 0 },
  },
  anthropic: {
    "claude-3-5-haiku-latest": { input: 0.8, output: 4 },
    "claude-3-7-sonnet-latest": { input: 3, output: 15 },
    "claude-sonnet-4-0": { input: 3, output: 15 },
    "claude-opus-4-0": { input: 15, output: 75 },
  },
  mock: {
    "mock-model": { input: 0, output: 0 },
    "*": { input: 0, output: 0 },
  },
};

/** The models a price table names for a kind (not `*`), for the model catalog. */
export function pricedModels(table: PriceTable, kind: string): string[] {
  return Object.keys(table[kind] ?? {}).filter((model) => model !== "*");
}

function lookup(prices: Readonly<Record<string, ModelPrice>> | undefined, model: string): ModelPrice | undefined {
  if (!prices) return undefined;
  const exact = prices[model];
  if (exact) return exact;
  // The longest priced name that the model extends with a dash suffix (a date, a revision).
  let best: string | undefined;
  for (const name of Object.keys(prices)) {
    if (name !== "*" && model.startsWith(`${name}-`) && (!best || name.length > best.length)) best = name;
  }
  return best ? prices[best] : undefined;
}

/** The price of a model: the integration's own, else the table's, else undefined. */
export function priceOf(
  model: string,
  kind: string,
  overrides: Readonly<Record<string, ModelPrice>> = {},
  table: PriceTable = DEFAULT_PRICES,
): ModelPrice | undefined {
  return lookup(overrides, model) ?? lookup(table[kind], model) ?? overrides["*"] ?? table[kind]?.["*"];
}

/** Token usage of one request. */
export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
}

/** The cost of a request's usage at a price. */
export function costOf(usage: TokenUsage, price: ModelPrice): number {
  return (usage.input_tokens * price.input + usage.output_tokens * price.output) / 1_000_000;
}
