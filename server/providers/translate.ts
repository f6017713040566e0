/**
 * Helpers shared by the translations between formats: what a request says that the target cannot
 * say is refused with a 400 naming where it is, unless the config drops such things
 * (`drop_params`), so nothing is lost without the operator having chosen it.
 */
import { GatewayError } from "../errors.js";
import { FORMAT_LIST, type FormatName } from "../formats/index.js";
import type { Json, ProviderCall } from "./kind.js";

/** Refuses what the target cannot say (400 `unsupported_parameter`), or lets the caller drop it under `drop_params`. */
export function dropOrRefuse(call: ProviderCall, where: string, reason: string): void {
  if (call.dropParams) return;
  throw new GatewayError(
    "unsupported_parameter",
    `${where}: ${reason}; remove it, or set "drop_params": true in the config to drop it`,
  );
}

/**
 * The request with only the fields a backend honours: another field is refused, naming it, or
 * dropped when the config says so. `stream` and `stream_options` are the translation's to set.
 */
export function keptParameters(request: Json, parameters: ReadonlySet<string>, call: ProviderCall): Json {
  const kept: Json = {};
  for (const [name, value] of Object.entries(request)) {
    if (value === undefined || name === "stream" || name === "stream_options") continue;
    if (parameters.has(name)) kept[name] = value;
    else if (!call.dropParams) {
      throw new GatewayError(
        "unsupported_parameter",
        `${name}: ${providerLabel(call)} cannot honour this parameter; remove it, or set "drop_params": true in the config to drop it`,
      );
    }
  }
  return kept;
}

function providerLabel(call: ProviderCall): string {
  return call.provider.slug ? `provider "@${call.provider.slug}" (${call.provider.name})` : `provider "${call.provider.name}"`;
}

/** A 400 for a request that is malformed in a way the translation has to read. */
export function invalidRequest(where: string, reason: string): GatewayError {
  return new GatewayError("invalid_request", `${where}: ${reason}`);
}

/** Whether a value is a JSON object. */
export function isJson(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The JSON objects of an array (others skipped), or none when it is not an array. */
export function jsonItems(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isJson) : [];
}

/** Unix seconds now, for the `created` of a translated answer. */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** An SSE event with a name, as the Anthropic format frames them. */
export function namedEvent(name: string, value: unknown): Buffer {
  return Buffer.from(`event: ${name}\ndata: ${JSON.stringify(value)}\n\n`);
}

/**
 * The call's headers without those a client of another format forwards (`anthropic-beta`,
 * `openai-organization`, …): they select features and accounts of a provider this call does not go to.
 */
export function headersFor(format: FormatName, headers: Record<string, string>): Record<string, string> {
  const foreign = FORMAT_LIST.filter((f) => f.name !== format).flatMap((f) => [
    ...f.forwardedHeaders,
    ...f.forwardedWithCallerCredential,
  ]);
  const out = { ...headers };
  for (const name of foreign) delete out[name];
  return out;
}
