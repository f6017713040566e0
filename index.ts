/**
 * The `guardgate` package entry: core's public API, with a `createEngine` that loads the plugins
 * shipped with guardgate (plugins/builtin.ts) before the given ones.
 */
import { createEngine as createCoreEngine, type Engine, type EngineOptions } from "./core/index.js";
import { builtinPlugins } from "./plugins/builtin.js";

export * from "./core/index.js";

/** Creates an engine with guardgate's built-in plugins plus `options.plugins`. */
export function createEngine(options: EngineOptions = {}): Promise<Engine> {
  return createCoreEngine({ ...options, builtins: options.builtins ?? builtinPlugins });
}
