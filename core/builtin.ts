/** The plugins every engine loads. */
import defaultPlugin from "../plugins/default/index.js";
import modelPlugin from "../plugins/model/index.js";
import type { PluginDefinition } from "./plugin-api.js";

export const builtinPlugins: readonly PluginDefinition[] = [defaultPlugin, modelPlugin];
