/**
 * Core's public API as the console's browser build sees it (console/tsconfig.json resolves
 * `core/index` here first, by `moduleSuffixes`): the result types alone, which import nothing with
 * a runtime, so the log view's types (server/logs/view.ts) type-check there without Node's modules.
 * The server's own build reads core/index.ts, which exports these same types.
 */
export type * from "./types.js";
