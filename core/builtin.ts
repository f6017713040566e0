/** The plugins every engine loads: the default checks and the partner adapters. */
import defaultPlugin from "../plugins/default/index.js";
import { partnerPlugins } from "../plugins/partners.js";
import type { PluginDefinition } from "./plugin-api.js";

export const builtinPlugins: readonly PluginDefinition[] = [defaultPlugin, ...partnerPlugins];
