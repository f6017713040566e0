/**
 * Parameters shared by the checks that post to a URL (webhook, log): the URL and the extra
 * headers, with their schemas and the load-time checks a schema cannot express.
 */
import { outboundUrlProblem, type ParameterProblem } from "../../../core/index.js";

/** Extra headers: an object of strings, or the same as a JSON string (the peer gateway's form). */
export type HeadersParameter = Record<string, string> | string | undefined;

/** Schema of a `headers` parameter. */
export const HEADERS_SCHEMA = {
  anyOf: [
    { type: "object", additionalProperties: { type: "string" } },
    { type: "string", description: "A JSON object of strings." },
  ],
  description:
    "Extra headers to send (an object of strings, or a JSON string of one), e.g. a token the receiver expects. Never echoed in results.",
};

// Headers that frame the HTTP message or carry guardgate's own signature: not the user's to set.
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "expect",
  "proxy-connection",
  "x-guardgate-signature",
]);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The headers a `headers` parameter holds, or a problem naming what is wrong. */
export function parseHeaders(value: HeadersParameter): { headers: Record<string, string> } | { problem: string } {
  let headers: unknown = value ?? {};
  if (typeof value === "string") {
    try {
      headers = value.trim() === "" ? {} : JSON.parse(value);
    } catch {
      return { problem: "is a string that is not a JSON object" };
    }
  }
  if (typeof headers !== "object" || headers === null || Array.isArray(headers)) return { problem: "must be a JSON object" };
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(headers)) {
    if (!TOKEN.test(name)) return { problem: `has an invalid header name ${JSON.stringify(name)}` };
    if (RESERVED_HEADERS.has(name.toLowerCase())) return { problem: `must not set ${name}: guardgate sets it` };
    if (typeof v !== "string") return { problem: `header ${name} must be a string` };
    if (/[\r\n\0]/.test(v)) return { problem: `header ${name} must not contain line breaks` };
    out[name.toLowerCase()] = v;
  }
  return { headers: out };
}

/** Headers that passed load-time validation. */
export function validHeaders(value: HeadersParameter): Record<string, string> {
  const parsed = parseHeaders(value);
  if ("problem" in parsed) throw new TypeError(`headers ${parsed.problem}`);
  return parsed.headers;
}

/** Load-time validation of a URL parameter and the headers. */
export function outboundProblem(urlParameter: string, url: string, headers: HeadersParameter): ParameterProblem | undefined {
  const urlProblem = outboundUrlProblem(url);
  if (urlProblem) return { parameter: urlParameter, message: urlProblem };
  const parsed = parseHeaders(headers);
  if ("problem" in parsed) return { parameter: "headers", message: parsed.problem };
  return undefined;
}
