/**
 * The partner plugins guardgate ships: the checks of third-party guardrail services (plan class
 * PARTNER). `partnerPluginModules` is what the engine loads (plugins/builtin.ts); `partners`
 * holds each one's facts, which docs/partners.md is generated from. Adding a vendor is one line
 * in each list.
 */
import { partner as acuvity } from "./acuvity/index.js";
import { partner as aporia } from "./aporia/index.js";
import { partner as azure } from "./azure/index.js";
import { partner as bedrock } from "./bedrock/index.js";
import { partner as aidr } from "./crowdstrike-aidr/index.js";
import { partner as f5 } from "./f5-guardrails/index.js";
import { partner as google } from "./google/index.js";
import { partner as javelin } from "./javelin/index.js";
import { partner as lakera } from "./lakera/index.js";
import { partner as lasso } from "./lasso/index.js";
import { partner as mistral } from "./mistral/index.js";
import { partner as openai } from "./openai/index.js";
import { partner as pangea } from "./pangea/index.js";
import { partner as prismaAirs } from "./panw-prisma-airs/index.js";
import type { PartnerPlugin } from "./partner-kit/catalog.js";
import { partner as patronus } from "./patronus/index.js";
import { partner as pillar } from "./pillar/index.js";
import { partner as promptfoo } from "./promptfoo/index.js";
import { partner as promptsecurity } from "./promptsecurity/index.js";
import { partner as qualifire } from "./qualifire/index.js";
import { partner as sydelabs } from "./sydelabs/index.js";
import { partner as walledai } from "./walledai/index.js";

/** Every partner plugin with its facts, in the order of the reference. */
export const partners: readonly PartnerPlugin[] = [
  openai,
  azure,
  bedrock,
  lakera,
  mistral,
  google,
  pangea,
  patronus,
  aporia,
  pillar,
  promptsecurity,
  acuvity,
  lasso,
  prismaAirs,
  aidr,
  f5,
  javelin,
  qualifire,
  sydelabs,
  walledai,
  promptfoo,
];

/**
 * The partner plugins' modules, for the engine's built-in list: each plugin's folder is named for
 * its id, and its index module's default export is the plugin.
 */
export const partnerPluginModules: readonly string[] = partners.map(
  (p) => new URL(`./${p.plugin.id}/index.js`, import.meta.url).href,
);
