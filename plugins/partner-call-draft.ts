/**
 * Interim: one outbound JSON call to a partner service, until the shared partner module lands;
 * then every caller moves to it and this file goes away.
 */
import { outboundRequest } from "../core/net/outbound.js";
import { OutboundError } from "../core/net/errors.js";
import { GuardgateError } from "../core/errors.js";
import type { CheckContext } from "../core/plugin-api.js";

/** A vendor's failure. */
export class VendorError extends GuardgateError {
  constructor(code: string, message: string) {
    super(code, message);
  }
}

/** One call. */
export interface VendorCall {
  vendor: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  timeout?: number;
}

/** The answer. */
export interface VendorAnswer {
  json: unknown;
  latencyMs: number;
  status: number;
}

/** Posts JSON; a non-2xx, a time-out or a body that is not JSON is a VendorError naming the vendor. */
export async function callVendor(context: CheckContext, call: VendorCall): Promise<VendorAnswer> {
  const started = performance.now();
  let response;
  try {
    response = await outboundRequest(call.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...call.headers },
      body: JSON.stringify(call.body),
      timeout: call.timeout ?? 10_000,
      signal: context.signal,
      maxResponseBytes: 1024 * 1024,
      settings: context.settings,
    });
  } catch (error) {
    if (error instanceof OutboundError && error.code === "outbound_timeout") {
      throw new VendorError("vendor_timeout", `${call.vendor}: no answer in time`);
    }
    throw new VendorError("vendor_unreachable", `${call.vendor}: ${(error as Error).message}`);
  }
  const latencyMs = Math.round((performance.now() - started) * 10) / 10;
  if (response.status < 200 || response.status >= 300) {
    throw new VendorError("vendor_status", `${call.vendor} answered HTTP ${response.status}`);
  }
  try {
    return { json: JSON.parse(response.body.toString("utf8")), latencyMs, status: response.status };
  } catch {
    throw new VendorError("vendor_malformed", `${call.vendor} answered with a body that is not JSON`);
  }
}

/** A field the vendor always sends was missing. */
export function missingField(vendor: string, field: string): VendorError {
  return new VendorError("vendor_malformed", `${vendor}'s answer lacks ${field}`);
}
