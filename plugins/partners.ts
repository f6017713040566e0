/**
 * The partner plugins guardgate ships: adapters to third-party guardrail services (plan class
 * PARTNER). `partnerPluginModules` is what the engine loads (plugins/builtin.ts); `partners`
 * holds each one's facts, which docs/partners.md is generated from. Adding a vendor is one line
 * in each list.
 */
import { partner as azure } from "./azure/index.js";
import { partner as bedrock } from "./bedrock/index.js";
import { partner as google } from "./google/index.js";
import { partner as lakera } from "./lakera/index.js";
import { partner as mistral } from "./mistral/index.js";
import { partner as openai } from "./openai/index.js";
import type { PartnerPlugin } from "./partner-kit/catalog.js";

/** Every partner plugin with its facts, in the order of the reference. */
export const partners: readonly PartnerPlugin[] = [openai, azure, bedrock, lakera, mistral, google];

/** The partner plugins' module URLs, in the same order. */
export const partnerPluginModules: readonly string[] = ["openai", "azure", "bedrock", "lakera", "mistral", "google"].map(
  (folder) => new URL(`./${folder}/index.js`, import.meta.url).href,
);
