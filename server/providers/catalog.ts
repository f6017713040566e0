/**
 * Providers guardgate knows by name, each a `ProviderKind` (adapter.ts): the wire format it
 * speaks, its base URL (with the version segment, as SDKs take it), and for kinds with a format of
 * their own, the backend that reaches them. Any OpenAI- or Anthropic-compatible server can also be
 * reached with `custom_host` or a provider record's `base_url`.
 */
import type { ProviderKind } from "./adapter.js";
import { bedrock } from "./kinds/bedrock/index.js";

/** Known providers, by the name used in configs and `x-gateway-provider`. */
export const PROVIDER_CATALOG: Readonly<Record<string, ProviderKind>> = {
  openai: { format: "openai", baseUrl: "https://api.openai.com/v1" },
  anthropic: { format: "anthropic", baseUrl: "https://api.anthropic.com/v1" },
  groq: { format: "openai", baseUrl: "https://api.groq.com/openai/v1" },
  "mistral-ai": { format: "openai", baseUrl: "https://api.mistral.ai/v1" },
  "together-ai": { format: "openai", baseUrl: "https://api.together.xyz/v1" },
  "fireworks-ai": { format: "openai", baseUrl: "https://api.fireworks.ai/inference/v1" },
  deepseek: { format: "openai", baseUrl: "https://api.deepseek.com/v1" },
  openrouter: { format: "openai", baseUrl: "https://openrouter.ai/api/v1" },
  ollama: { format: "openai", baseUrl: "http://127.0.0.1:11434/v1" },
  bedrock,
};

/** The built-in provider that answers from `mock_response` without calling anything. */
export const MOCK_PROVIDER = "mock";

/** Whether a name is a provider guardgate can call. */
export function isKnownProvider(name: string): boolean {
  return name === MOCK_PROVIDER || Object.hasOwn(PROVIDER_CATALOG, name);
}

/** The names a config may use, for error messages. */
export function knownProviderNames(): string[] {
  return [MOCK_PROVIDER, ...Object.keys(PROVIDER_CATALOG)];
}
