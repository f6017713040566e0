import { isIP } from "node:net";
import { LRUCache } from "lru-cache";
import {
  type CheckContext,
  type CheckDefinition,
  defineCheck,
  type NetworkPolicy,
  networkPolicy,
  OutboundError,
  outboundRequest,
  type Resolver,
  systemResolver,
  textExcerpt,
} from "../../../core/index.js";
import { addressPermitted, policyKey, resolveWithPolicy } from "../../../core/internal.js";
import { findUrls, urlSyntaxProblem } from "../shared/url-syntax.js";

type Mode = "syntax" | "dns" | "http";

interface Parameters {
  mode: Mode;
  onlyDNS: boolean;
  not: boolean;
  maxUrls: number;
  concurrency: number;
  urlTimeout: number;
  cacheTtl: number;
}

/** What the validUrls check depends on; tests inject a resolver. */
export interface ValidUrlsDependencies {
  resolver?: Resolver;
}

/** Why a URL is invalid. */
type Reason = "syntax" | "not-found" | "refused-address" | "timeout" | "unreachable" | "not-checked" | `http-${number}`;

interface Verdict {
  valid: boolean;
  reason?: Reason;
}

/** How many URLs of each kind the result lists; the counts cover all of them. */
const LISTED = 50;
// Answers to HEAD and GET are not read; this only bounds what is drained from a connection.
const MAX_DRAIN = 64 * 1024;
// Results that say something about the URL, not about the moment: worth caching.
const LASTING = new Set<string | undefined>([undefined, "not-found", "refused-address"]);

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "");
}

/** A URL as it is looked up: no credentials, no fragment. */
function lookupUrl(url: string): URL {
  const u = new URL(url);
  u.username = "";
  u.password = "";
  u.hash = "";
  return u;
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

async function checkDns(url: URL, resolver: Resolver, policy: NetworkPolicy, timeout: number): Promise<Verdict> {
  const host = hostOf(url);
  if (isIP(host)) return addressPermitted(host, host, policy) ? { valid: true } : { valid: false, reason: "refused-address" };
  try {
    const found = await withTimeout(resolveWithPolicy(host, resolver, policy), timeout);
    if (found === "timeout") return { valid: false, reason: "timeout" };
    if (found.permitted.length) return { valid: true };
    return { valid: false, reason: found.refused.length ? "refused-address" : "not-found" };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { valid: false, reason: code === "ENOTFOUND" || code === "ENODATA" ? "not-found" : "unreachable" };
  }
}

async function checkHttp(url: URL, context: CheckContext, resolver: Resolver, timeout: number): Promise<Verdict> {
  // One time limit per URL, whether it takes one request or two.
  const deadline = Date.now() + timeout;
  const call = (method: "HEAD" | "GET") =>
    outboundRequest(url, {
      method,
      timeout: Math.max(1, deadline - Date.now()),
      signal: context.signal,
      maxResponseBytes: MAX_DRAIN,
      readBody: false,
      maxRedirects: 5,
      settings: context.settings,
      resolver,
    });
  try {
    let response = await call("HEAD");
    // Servers that do not implement HEAD say so with 405 or 501; GET tells whether the URL answers.
    if (response.status === 405 || response.status === 501) response = await call("GET");
    return response.status < 400 ? { valid: true } : { valid: false, reason: `http-${response.status}` };
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    switch (error.code) {
      case "outbound_aborted":
        throw error;
      case "outbound_address_refused":
        return { valid: false, reason: "refused-address" };
      case "outbound_timeout":
        return { valid: false, reason: "timeout" };
      case "outbound_network":
        return { valid: false, reason: /does not resolve/.test(error.message) ? "not-found" : "unreachable" };
      default:
        return { valid: false, reason: "unreachable" };
    }
  }
}

/** Runs `fn` over the items with at most `limit` calls in flight, keeping the order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

const NOTES = `
**Finding URLs.** Every \`http://\` and \`https://\` URL in the text, up to whitespace or a quote,
angle bracket, backtick or brace; trailing sentence punctuation and closing brackets the URL did not
open are not part of it (so \`[docs](https://example.com/a).\` yields \`https://example.com/a\`).
Repeated URLs are checked once. A text with no URL passes (there is no invalid URL in it).

**Modes.**
- \`syntax\` (the default) — no network: the URL parses and its host is an IP address or a domain
  name of two or more valid labels with an alphabetic (or IDN) top-level label; \`localhost\` and
  other single-label hosts are not valid.
- \`dns\` (also \`onlyDNS: true\`) — well formed, and the host name resolves to an address the
  gateway's network policy permits.
- \`http\` — well formed, and a \`HEAD\` (a \`GET\` when the server answers 405 or 501) gets a
  status below 400; redirects within the same origin are followed (up to 5), a redirect elsewhere
  counts as an answer and is not followed.

**Limits.** At most \`maxUrls\` URLs per text are looked up in the network modes, \`concurrency\` at a
time, each within \`urlTimeout\` ms; URLs beyond the cap are reported as \`not-checked\` and count as
invalid, so a text cannot pass by holding more URLs than the check looks at. Results of lookups
(except time-outs and unreachable hosts) are cached for \`cacheTtl\` seconds. The check's own time
limit (\`timeout\`, 10 s by default for network checks) bounds the whole run.

**Network policy (SSRF).** Names that resolve only to private, loopback or link-local addresses,
and such IP literals, are \`refused-address\` — never called — unless the gateway's settings allow
them (\`allowPrivateAddresses\`, \`allowLoopback\`, \`internalHosts\`); cloud metadata addresses always
are. Addresses are checked at connect time, so DNS rebinding cannot slip past the check.
`.trim();

/** Builds the validUrls check; the default export uses the system resolver. */
export function createValidUrlsCheck(dependencies: ValidUrlsDependencies = {}): CheckDefinition<Parameters> {
  const resolver = dependencies.resolver ?? systemResolver;
  const cache = new LRUCache<string, Verdict>({ max: 10_000 });

  return defineCheck<Parameters>({
    id: "validUrls",
    name: "Valid URLs",
    description: "Checks that every URL in the text is well formed, resolves (DNS) or answers (HTTP).",
    sides: ["input", "output"],
    kind: "network",
    parameters: {
      type: "object",
      properties: {
        mode: {
          enum: ["syntax", "dns", "http"],
          default: "syntax",
          description: "`syntax`: well formed, no network; `dns`: the host resolves; `http`: the URL answers below 400.",
        },
        onlyDNS: { type: "boolean", default: false, description: "The peer gateway's switch: true means `mode: dns`." },
        not: { type: "boolean", default: false, description: "Invert the verdict: pass when some URL is invalid." },
        maxUrls: {
          type: "integer",
          minimum: 1,
          maximum: 100,
          default: 10,
          description: "Most URLs looked up per text in the dns and http modes; the rest count as invalid.",
        },
        concurrency: {
          type: "integer",
          minimum: 1,
          maximum: 20,
          default: 5,
          description: "Most lookups in flight at once.",
        },
        urlTimeout: {
          type: "integer",
          minimum: 1,
          maximum: 30_000,
          default: 3000,
          description: "Time limit per URL lookup, in milliseconds.",
        },
        cacheTtl: {
          type: "integer",
          minimum: 0,
          maximum: 86_400,
          default: 300,
          description: "How long lookup results are reused, in seconds; 0 disables the cache.",
        },
      },
      additionalProperties: false,
    },
    data: {
      mode: { type: "string", description: "The mode applied." },
      urlCount: { type: "number", description: "Distinct URLs found in the text." },
      validUrls: { type: "string[]", description: `Valid URLs (the first ${LISTED}).` },
      invalidUrls: {
        type: "object[]",
        description: `Invalid URLs with the reason (the first ${LISTED}): {url, reason}; reason is syntax, not-found, refused-address, timeout, unreachable, http-<status> or not-checked.`,
      },
      invalidCount: { type: "number", description: "How many URLs are invalid." },
      not: { type: "boolean", description: "Whether the verdict was inverted." },
      verdict: { type: "boolean", description: "The check's verdict." },
      explanation: { type: "string", description: "Why the check passed or failed." },
      textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
    },
    examples: [
      {
        parameters: {},
        text: "See https://example.com/docs.",
        description: "Well-formed URLs only, no network.",
        verdict: true,
        data: { validUrls: ["https://example.com/docs"] },
      },
      {
        parameters: { mode: "http", maxUrls: 5 },
        text: "Docs at http://127.0.0.1:8080/docs.",
        description: "Every URL must answer (at most 5 per text).",
        verdict: false,
      },
      {
        parameters: { onlyDNS: true },
        text: "Docs at http://127.0.0.1:8080/docs.",
        description: "Every host must resolve (the peer's parameter).",
        verdict: false,
      },
    ],
    notes: NOTES,
    validate(p) {
      if (p.onlyDNS && p.mode === "http")
        return { parameter: "onlyDNS", message: 'onlyDNS: true means mode "dns"; it cannot go with mode "http"' };
      return undefined;
    },
    async run(context, p) {
      const mode: Mode = p.onlyDNS && p.mode === "syntax" ? "dns" : p.mode;
      const policy = networkPolicy(context.settings);
      const key = `${mode} ${policyKey(policy)} `;
      const urls = findUrls(context.text);
      let looked = 0;
      const plan: Array<{ url: string; verdict?: Verdict }> = urls.map((url) => {
        const problem = urlSyntaxProblem(url);
        if (problem) return { url, verdict: { valid: false, reason: "syntax" } };
        if (mode === "syntax") return { url, verdict: { valid: true } };
        const cached = p.cacheTtl > 0 ? cache.get(key + url) : undefined;
        if (cached) return { url, verdict: cached };
        if (looked >= p.maxUrls) return { url, verdict: { valid: false, reason: "not-checked" } };
        looked++;
        return { url };
      });
      const pending = plan.filter((entry) => entry.verdict === undefined);
      await mapLimited(pending, p.concurrency, async (entry) => {
        if (context.signal.aborted) throw context.signal.reason;
        const target = lookupUrl(entry.url);
        const verdict =
          mode === "dns"
            ? await checkDns(target, resolver, policy, p.urlTimeout)
            : await checkHttp(target, context, resolver, p.urlTimeout);
        if (p.cacheTtl > 0 && LASTING.has(verdict.reason)) cache.set(key + entry.url, verdict, { ttl: p.cacheTtl * 1000 });
        entry.verdict = verdict;
      });

      const valid = plan.filter((e) => e.verdict?.valid).map((e) => e.url);
      const invalid = plan
        .filter((e) => !e.verdict?.valid)
        .map((e) => ({ url: e.url, reason: e.verdict?.reason ?? "unreachable" }));
      const allValid = invalid.length === 0;
      const verdict = p.not ? !allValid : allValid;
      const found =
        urls.length === 0
          ? "The text has no URL"
          : allValid
            ? `All ${urls.length} URLs are valid`
            : `${invalid.length} of ${urls.length} URLs are invalid`;
      const inverted = p.not ? `; the check is inverted (not: true), so it ${verdict ? "passes" : "fails"}` : "";
      return {
        verdict,
        data: {
          mode,
          urlCount: urls.length,
          validUrls: valid.slice(0, LISTED),
          invalidUrls: invalid.slice(0, LISTED),
          invalidCount: invalid.length,
          not: p.not,
          verdict,
          explanation: `${found} (mode ${mode})${inverted}.`,
          textExcerpt: textExcerpt(context.text),
        },
      };
    },
  });
}

export default createValidUrlsCheck();
