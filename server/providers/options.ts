/**
 * A provider's options (`aws_region`, `api_version`, `vertex_service_account_json`, …) checked
 * against its kind's schema where they are written: the config file, an integration, a config.
 * The kind names the options holding secrets; those are scrubbed from upstream answers and never
 * shown.
 */
import { ConfigError } from "../../core/index.js";
import { compileValidator, type Validator } from "../schema.js";
import type { Json } from "./kind.js";
import { kindOf } from "./catalog.js";

const validators = new Map<string, Validator<Json>>();

/** Throws a ConfigError naming the path under `where` when the options do not suit the provider's kind. */
export function checkProviderOptions(provider: string, options: unknown, where: string): void {
  const schema = kindOf(provider).optionsSchema;
  if (!schema) {
    const given = options !== undefined && (typeof options !== "object" || options === null || Object.keys(options).length > 0);
    if (given) throw new ConfigError(where, `provider "${provider}" takes no options`);
    return;
  }
  const validate: Validator<Json> = validators.get(provider) ?? compileValidator<Json>(schema);
  validators.set(provider, validate);
  validate(options ?? {}, where);
}

/**
 * The options of a config that the provider's kind reads. A config may carry the peer gateway's
 * keys of other kinds (accepted with a warning, core/config/keys.ts); those are not the kind's to
 * refuse.
 */
export function configOptionsFor(provider: string, options: Json | undefined): Json {
  const properties = kindOf(provider).optionsSchema?.properties as Json | undefined;
  if (!options || !properties) return {};
  return Object.fromEntries(Object.entries(options).filter(([key]) => Object.hasOwn(properties, key)));
}

/** The values of the options that hold secrets, for scrubbing. */
export function secretOptionValues(provider: string, options: Json): string[] {
  const values: string[] = [];
  for (const name of kindOf(provider).secretOptions ?? []) {
    const value = options[name];
    if (typeof value === "string" && value) {
      values.push(value);
      // A service account's JSON given as text: its long strings too, as they would be echoed one by one.
      values.push(...longStrings(jsonObject(value)));
    }
    // A secret given as an object (a service account's JSON): each long string of it.
    else values.push(...longStrings(value));
  }
  return values;
}

function jsonObject(text: string): unknown {
  if (!text.trimStart().startsWith("{")) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function longStrings(value: unknown): string[] {
  if (!value || typeof value !== "object") return [];
  return Object.values(value).filter((v): v is string => typeof v === "string" && v.length >= 8);
}

/** A text from the upstream without the provider's secrets: its key, and the options holding secrets. */
export function scrubSecrets(text: string, provider: { name: string; options: Json; secret?: string }): string {
  const secrets = secretOptionValues(provider.name, provider.options);
  if (provider.secret) secrets.push(provider.secret);
  for (const secret of secrets) if (text.includes(secret)) text = text.replaceAll(secret, "[REDACTED]");
  return text;
}
