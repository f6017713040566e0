/**
 * An Azure OpenAI answer as the gateway reads it. The body passes unchanged (content filter
 * fields included); on the way, the content filter's verdicts are noted for the log, from the
 * JSON answer, an error, or each stream event that carries some. Azure says when to come back in
 * `retry-after-ms` (or `x-ms-retry-after-ms`) as well as, or instead of, `retry-after`: the
 * milliseconds win, given as the seconds the gateway's retry and the client read.
 */
import type { IncomingHttpHeaders } from "node:http";
import { SseSplitter } from "../../../formats/sse.js";
import type { UpstreamResponse } from "../../../upstream/client.js";
import type { Json, ProviderCall } from "../../kind.js";
import { FilterFacts } from "./filters.js";

/** The answer with its retry hint normalised and its filter verdicts noted into `call.facts`. */
export function azureAnswer(response: UpstreamResponse, call: ProviderCall): UpstreamResponse {
  const headers = withRetryAfter(response.headers);
  const filters = call.facts && new FilterFacts(call.facts);
  const ok = response.status >= 200 && response.status < 300;
  return {
    status: response.status,
    headers,
    contentType: response.contentType,
    async text() {
      const text = await response.text();
      if (filters) note(filters, text, ok);
      return text;
    },
    stream: () => (filters ? observed(response.stream(), filters, ok) : response.stream()),
    discard: () => response.discard(),
    ...(response.scrub && { scrub: response.scrub }),
  };
}

/** `retry-after` in seconds from Azure's millisecond headers, when one is given. */
export function withRetryAfter(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const raw = headers["retry-after-ms"] ?? headers["x-ms-retry-after-ms"];
  const ms = Number(Array.isArray(raw) ? raw[0] : raw);
  if (raw === undefined || !Number.isFinite(ms) || ms < 0) return headers;
  return { ...headers, "retry-after": String(ms / 1000) };
}

/** Only text naming a filter is parsed: most answers and events carry none. */
function note(filters: FilterFacts, text: string, ok: boolean): void {
  if (!text.includes("filter_result") && !text.includes("content_filter")) return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return;
  if (ok) filters.answer(body as Json);
  else filters.error(body as Json);
}

/** The stream's bytes as they come, read beside for filter verdicts. */
async function* observed(source: AsyncIterable<Buffer>, filters: FilterFacts, ok: boolean): AsyncIterable<Buffer> {
  let splitter: SseSplitter | undefined = new SseSplitter();
  for await (const chunk of source) {
    // Noting never holds a byte back or breaks the stream: a malformed event is the relay's to judge.
    try {
      if (splitter) for (const event of splitter.push(chunk)) note(filters, event.data, ok);
    } catch {
      // An oversized event, which the relay reports: the rest of the stream goes unread here.
      splitter = undefined;
    }
    yield chunk;
  }
}
