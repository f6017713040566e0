/**
 * Providers guardgate knows by name, each a `ProviderKind` (kind.ts): the wire format it
 * speaks, its base URL (with the version segment, as SDKs take it), and for kinds with a format of
 * their own, the backend that reaches them. Any OpenAI- or Anthropic-compatible server can also be
 * reached with `custom_host` or a provider record's `base_url`.
 */
import { nearestKey } from "../../core/internal.js";
import type { ProviderKind } from "./kind.js";
import { ANTHROPIC_CHAT } from "./kinds/anthropic/index.js";
import { azureOpenAi } from "./kinds/azure/index.js";
import { bedrock } from "./kinds/bedrock/index.js";
import { GOOGLE_KIND, VERTEX_AI_KIND } from "./kinds/google/index.js";
import { OPENAI_CHAT } from "./kinds/openai/index.js";

/** Known providers, by the name used in configs and `x-gateway-provider`. */
export const PROVIDER_CATALOG: Readonly<Record<string, ProviderKind>> = {
  openai: { format: "openai", alsoServes: ["responses"], baseUrl: "https://api.openai.com/v1", chat: OPENAI_CHAT },
  anthropic: { format: "anthropic", baseUrl: "https://api.anthropic.com/v1", chat: ANTHROPIC_CHAT },
  groq: { format: "openai", baseUrl: "https://api.groq.com/openai/v1", chat: OPENAI_CHAT },
  "mistral-ai": { format: "openai", baseUrl: "https://api.mistral.ai/v1", chat: OPENAI_CHAT },
  "together-ai": { format: "openai", baseUrl: "https://api.together.xyz/v1", chat: OPENAI_CHAT },
  "fireworks-ai": { format: "openai", baseUrl: "https://api.fireworks.ai/inference/v1", chat: OPENAI_CHAT },
  deepseek: { format: "openai", baseUrl: "https://api.deepseek.com/v1", chat: OPENAI_CHAT },
  openrouter: { format: "openai", baseUrl: "https://openrouter.ai/api/v1", chat: OPENAI_CHAT },
  ollama: { format: "openai", baseUrl: "http://127.0.0.1:11434/v1", chat: OPENAI_CHAT },
  // OpenAI-compatible services (docs/providers.md, "OpenAI-compatible services").
  cohere: { format: "openai", baseUrl: "https://api.cohere.ai/compatibility/v1", chat: OPENAI_CHAT },
  "perplexity-ai": { format: "openai", baseUrl: "https://api.perplexity.ai", chat: OPENAI_CHAT },
  "x-ai": { format: "openai", baseUrl: "https://api.x.ai/v1", chat: OPENAI_CHAT },
  cerebras: { format: "openai", baseUrl: "https://api.cerebras.ai/v1", chat: OPENAI_CHAT },
  // Local servers at their documented default ports; base_url or custom_host points elsewhere.
  vllm: { format: "openai", baseUrl: "http://127.0.0.1:8000/v1", chat: OPENAI_CHAT },
  "lm-studio": { format: "openai", baseUrl: "http://127.0.0.1:1234/v1", chat: OPENAI_CHAT },
  "azure-openai": azureOpenAi,
  bedrock,
  google: GOOGLE_KIND,
  "vertex-ai": VERTEX_AI_KIND,
};

/** The built-in provider that answers from `mock_response` without calling anything. */
export const MOCK_PROVIDER = "mock";

/** A provider record naming a kind the catalog lacks is an OpenAI-compatible server at its `base_url`. */
const COMPATIBLE: ProviderKind = { format: "openai", chat: OPENAI_CHAT };

/** The kind behind a provider name. */
export function kindOf(name: string): ProviderKind {
  return PROVIDER_CATALOG[name] ?? COMPATIBLE;
}

/** Whether a kind's default server runs on this machine (Ollama, vLLM, LM Studio), which needs no key. */
export function isLocalKind(name: string): boolean {
  const url = Object.hasOwn(PROVIDER_CATALOG, name) ? PROVIDER_CATALOG[name]?.baseUrl : undefined;
  return url !== undefined && new URL(url).hostname === "127.0.0.1";
}

/** Whether a name is a provider guardgate can call. */
export function isKnownProvider(name: string): boolean {
  return name === MOCK_PROVIDER || Object.hasOwn(PROVIDER_CATALOG, name);
}

/** The names a config may use, for error messages. */
export function knownProviderNames(): string[] {
  return [MOCK_PROVIDER, ...Object.keys(PROVIDER_CATALOG)];
}

/** Names people write for a kind that the catalog spells otherwise: the product or the vendor. */
const OTHER_NAMES: Readonly<Record<string, string>> = {
  gemini: "google",
  "google-ai": "google",
  vertex: "vertex-ai",
  vertexai: "vertex-ai",
  azure: "azure-openai",
  claude: "anthropic",
  aws: "bedrock",
  mistral: "mistral-ai",
  together: "together-ai",
  fireworks: "fireworks-ai",
  perplexity: "perplexity-ai",
  xai: "x-ai",
  grok: "x-ai",
  lmstudio: "lm-studio",
};

/** Why `name` is not a provider: the kind it most likely means, when one is near, and every kind there is. */
export function unknownProviderProblem(name: string): string {
  const known = knownProviderNames();
  const near = OTHER_NAMES[name.toLowerCase()] ?? nearestKey(name, known);
  return `"${name}" is not a provider guardgate can call${near ? `; did you mean ${near}?` : "."} Known kinds: ${known.join(", ")}`;
}
