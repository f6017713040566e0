/**
 * The peer gateway's side of the gateway benchmark: where its package's Node server is, and the
 * benchmark's configs in its own form, sent as its `x-portkey-config` header on every request
 * (the open-source build has no saved configs). The pack is the standard pack (standard-pack.ts)
 * as full `before_request_hooks` / `after_request_hooks` objects, the form its docs give for
 * inline guardrails: the same eight checks with the same parameters. Two differences are forced:
 * its `regexMatch` builds `new RegExp(rule)` with no flags, so the pack's case-insensitive `(?i)`
 * pattern is written with character classes, which match the same texts; and its counting checks
 * need both bounds, so an absent lower bound is given as 0.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { STANDARD_PACK } from "./standard-pack.js";

/** The peer's Node server build, as its package's `bin` and `start:node` script name it. */
export function peerServerPath(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve("@portkey-ai/gateway/package.json");
  return path.join(path.dirname(manifest), "build", "start-server.js");
}

/** The peer's version, for the report. */
export function peerVersion(): string {
  const require = createRequire(import.meta.url);
  return (require("@portkey-ai/gateway/package.json") as { version: string }).version;
}

/** `(?i)(api[_-]?key|password)\s*[:=]` without the inline flag the peer's RegExp cannot read. */
const CASELESS_SECRETS = "([Aa][Pp][Ii][_-]?[Kk][Ee][Yy]|[Pp][Aa][Ss][Ss][Ww][Oo][Rr][Dd])\\s*[:=]";

/**
 * Lower bounds the peer needs spelled out: its counting checks fail with "Invalid or missing ...
 * range" when one is absent, where guardgate reads an absent bound as none.
 */
const LOWER_BOUNDS: Record<string, string> = {
  wordCount: "minWords",
  sentenceCount: "minSentences",
  characterCount: "minCharacters",
};

/** One shorthand guardrail of the pack as a full hook object of the peer's. */
function hook(guardrail: Record<string, unknown>): Record<string, unknown> {
  const { id, ...checks } = guardrail;
  return {
    type: "guardrail",
    id,
    deny: false,
    checks: Object.entries(checks).map(([key, value]) => {
      const { id: checkId, ...parameters } = value as Record<string, unknown>;
      const rule = parameters.rule === "(?i)(api[_-]?key|password)\\s*[:=]" ? CASELESS_SECRETS : parameters.rule;
      const lower = LOWER_BOUNDS[key];
      return {
        id: typeof checkId === "string" ? checkId : `default.${key}`,
        parameters: { ...(lower && { [lower]: 0 }), ...parameters, ...(rule !== undefined && { rule }) },
      };
    }),
  };
}

/** The peer's `x-portkey-config` header for the fake upstream at `upstreamPort`, with or without the pack. */
export function peerConfigHeader(upstreamPort: number, pack: boolean): string {
  return JSON.stringify({
    provider: "openai",
    api_key: "sk-bench",
    custom_host: `http://127.0.0.1:${upstreamPort}/v1`,
    ...(pack && {
      before_request_hooks: STANDARD_PACK.input_guardrails.map(hook),
      after_request_hooks: STANDARD_PACK.output_guardrails.map(hook),
    }),
  });
}
