/**
 * The engine's error codes, in one table: what loading a config or a plugin refuses with, and the
 * codes a check's `error` carries in results when it did not decide. Error classes take their code
 * from these keys, so none is used without being listed; `npm run docs:checks` writes the table
 * to docs/errors.md.
 */

/** One code and what it means. */
export interface CoreErrorInfo {
  meaning: string;
}

/** Codes of configs and guardrails that cannot be loaded (ConfigError); the gateway answers them with 400. */
export const CONFIG_ERRORS = {
  config_invalid: { meaning: "a config or guardrail breaks a rule; the message names the path and the rule" },
  config_malformed: { meaning: "the config is not JSON, or not an object where one is needed" },
  config_unreadable: { meaning: "a config file cannot be read" },
  unknown_key: { meaning: "a key no config form knows; the message names the nearest known key" },
  unknown_guardrail: { meaning: "a config names a guardrail id that no source holds" },
  unknown_plugin: { meaning: "a check id names a plugin that is not loaded" },
  unknown_check: { meaning: "a check id that no loaded plugin defines; the message names the nearest known id" },
  unsupported_side: { meaning: "a check is attached to a side its metadata does not list" },
  check_validate_failed: {
    meaning: "a check's own parameter validation threw (a bug of its plugin), reported at the config path",
  },
  wrong_side: { meaning: "a guardrail or check is attached to a side it does not support" },
} as const satisfies Record<string, CoreErrorInfo>;

/** Codes of plugins that cannot be loaded or registered (PluginError). */
export const PLUGIN_ERRORS = {
  plugin_invalid: { meaning: "a plugin's definition breaks the plugin API (missing id, bad check metadata, wrong apiVersion)" },
  plugin_load_failed: { meaning: "a plugin module threw, or exported no plugin, when imported" },
  plugin_not_found: { meaning: "a plugin's package or path does not exist" },
  plugin_api_version: { meaning: "a plugin declares an apiVersion this engine does not support" },
  plugin_collision: { meaning: "two plugins share an id" },
  plugin_not_transferable: { meaning: "a plugin given as an object cannot run in worker threads; load it by path or package" },
} as const satisfies Record<string, CoreErrorInfo>;

/** Codes in a check result's `error` when the check did not decide (its verdict then follows `failOnError`). */
export const CHECK_ERRORS = {
  check_timeout: { meaning: "the check ran past its time limit and was cut off" },
  check_aborted: { meaning: "the request no longer needed the result (the client left, or a deny made it moot)" },
  check_lost: { meaning: "the worker thread running the check was stopped before it reported" },
  worker_failed: { meaning: "the worker thread running the check crashed or ran out of memory" },
  worker_stopped: { meaning: "the worker thread was stopped because another check of the phase overran its limit" },
  no_text: { meaning: "the body has no text for the check to read (an embedding, an answer with only tool calls)" },
  credentials_invalid: { meaning: "the check's credentials are missing or do not match its plugin's credentials schema" },
  outbound_url_invalid: { meaning: "the URL a check calls is not a valid http(s) URL" },
  outbound_address_refused: {
    meaning: "the URL resolves to a private, loopback or link-local address the settings do not allow",
  },
  outbound_timeout: { meaning: "the called service gave no complete answer within the time limit" },
  outbound_aborted: { meaning: "the outbound call was cancelled with its check" },
  outbound_response_too_large: { meaning: "the called service's answer is larger than the check allows" },
  outbound_network: { meaning: "the connection failed or was reset" },
} as const satisfies Record<string, CoreErrorInfo>;

/** A code of ConfigError. */
export type ConfigErrorCode = keyof typeof CONFIG_ERRORS;
/** A code of PluginError. */
export type PluginErrorCode = keyof typeof PLUGIN_ERRORS;
/** A code of a check error the engine itself raises. */
export type CheckErrorCode = keyof typeof CHECK_ERRORS;
