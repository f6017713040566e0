/**
 * The plugins shipped with guardgate, as module URLs: the package entry, the server and the CLI
 * hand this list to the engine, which imports each module, and its workers import them again.
 * A new built-in plugin is one more line here.
 */
export const builtinPlugins: readonly string[] = [new URL("./default/index.js", import.meta.url).href];
