/**
 * The partner plugins guardgate ships: adapters to third-party guardrail services (plan class
 * PARTNER), each with the facts docs/partners.md is generated from. Adding a vendor is adding
 * its entry here.
 */
import type { PluginDefinition } from "../core/plugin-api.js";
import acuvity from "./acuvity/index.js";
import aporia from "./aporia/index.js";
import azure from "./azure/index.js";
import bedrock from "./bedrock/index.js";
import aidr from "./crowdstrike-aidr/index.js";
import f5 from "./f5-guardrails/index.js";
import google from "./google/index.js";
import javelin from "./javelin/index.js";
import lakera from "./lakera/index.js";
import lasso from "./lasso/index.js";
import mistral from "./mistral/index.js";
import openai from "./openai/index.js";
import pangea from "./pangea/index.js";
import prismaAirs from "./panw-prisma-airs/index.js";
import type { PartnerPlugin } from "./partner-kit/catalog.js";
import patronus from "./patronus/index.js";
import pillar from "./pillar/index.js";
import promptfoo from "./promptfoo/index.js";
import promptsecurity from "./promptsecurity/index.js";
import qualifire from "./qualifire/index.js";
import sydelabs from "./sydelabs/index.js";
import walledai from "./walledai/index.js";

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

/** The partner plugins, for the engine's built-in list. */
export const partnerPlugins: readonly PluginDefinition[] = partners.map((p) => p.plugin);
