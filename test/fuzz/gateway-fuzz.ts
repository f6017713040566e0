/**
 * Property-based fuzzing of a gateway over a real store: random requests to the inference, hook
 * and admin routes, with random config headers (valid, misspelt, malformed), bodies (valid,
 * misshapen, any JSON, not JSON, deeply nested, long runs of one character) and keys. Every
 * answer must be below 500 and arrive in time, the gateway must keep answering, and every
 * inference request of a valid key must leave a record in the request log.
 */
import fc from "fast-check";
import { chat, type ManagedTestGateway, startManaged } from "../support/managed.js";

/** How a fuzz run went. */
export interface FuzzSummary {
  seed: number;
  runs: number;
  byStatus: Record<string, number>;
  byRoute: Record<string, number>;
  inferenceAnswered: number;
  inferenceLogged: number;
  slowestMs: number;
}

const INFERENCE = ["/v1/chat/completions", "/v1/completions", "/v1/embeddings", "/v1/messages"];
/** No answer may take longer than this; a hang is a failure, not a slow test. */
const ANSWER_LIMIT_MS = 15_000;

const denyHello = { deny: true, checks: [{ id: "default.contains", parameters: { words: ["hello"], operator: "none" } }] };

/** Config keys as users write them and as they misspell them. */
const KEYS = [
  "input_guardrails",
  "output_guardrails",
  "before_request_hooks",
  "after_request_hooks",
  "beforeRequestHooks",
  "input_guardrail",
  "before_request_hook",
  "inputGuardrails",
  "overide_params",
  "override_params",
  "retry",
  "strategy",
  "targets",
  "forward_headers",
  "cache",
  "provider",
];

const text = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.constantFrom("hello", "hi there", "", "<|endoftext|>", "\u0000", "𝐛𝐨𝐥𝐝 👩‍💻"),
  fc.tuple(fc.constantFrom("a", "!", " ", "\n", "{"), fc.integer({ min: 1, max: 20_000 })).map(([c, n]) => c.repeat(n)),
);

const guardrailList = fc.oneof(
  fc.constant([denyHello]),
  fc.constant([{ contains: { words: ["hello"], operator: "none" }, deny: true }]),
  fc.constant(["fuzz-guardrail"]),
  fc.constant([{ id: "fuzz-guardrail" }]),
  fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 3 }),
);

const config: fc.Arbitrary<unknown> = fc.oneof(
  fc.dictionary(fc.constantFrom(...KEYS), fc.oneof(guardrailList, fc.jsonValue({ maxDepth: 3 })), { maxKeys: 3 }),
  fc.record({
    strategy: fc.constant({ mode: "fallback", on_status_codes: [446] }),
    targets: fc.array(
      fc.record(
        { provider: fc.constant("@mock"), mock_response: text, output_guardrails: guardrailList },
        { requiredKeys: ["provider"] },
      ),
      { minLength: 1, maxLength: 3 },
    ),
  }),
  fc.jsonValue({ maxDepth: 4 }),
);

const configHeader = fc.option(
  fc.oneof(
    config.map((c) => JSON.stringify(c)),
    fc.constantFrom("fuzz-config", "no-such-config", "{", "[]", "null"),
    fc.string({ maxLength: 50 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")),
  ),
  { nil: undefined, freq: 2 },
);

function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

/** A body as sent: an object (sent as JSON) or raw text. */
const body: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc
      .tuple(text, fc.boolean(), fc.option(text))
      .map(([t, stream, mock]) => chat("@mock/m", t, { stream, ...(mock !== null && { mock_response: mock }) })),
  },
  {
    weight: 1,
    arbitrary: fc.record({ model: fc.constant("@mock/m"), prompt: fc.oneof(text, fc.array(text, { maxLength: 3 })) }),
  },
  { weight: 1, arbitrary: fc.record({ model: fc.constant("@mock/m"), input: fc.oneof(text, fc.jsonValue({ maxDepth: 2 })) }) },
  {
    weight: 1,
    arbitrary: fc.record({ model: fc.constant("@mock/m"), max_tokens: fc.integer(), messages: fc.jsonValue({ maxDepth: 4 }) }),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 5 }) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 3000 }).map((d) => ({ raw: `{"model":"@mock/m","messages":[],"x":${nested(d)}}` })),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 100 }).map((s) => ({ raw: s })) },
);

interface Call {
  route: string;
  method: "GET" | "POST";
  key: "workspace" | "admin" | "none" | "wrong";
  config: string | undefined;
  strict: string | undefined;
  metadata: string | undefined;
  body: unknown;
}

function call(workspace: string): fc.Arbitrary<Call> {
  const route = fc.constantFrom(
    ...INFERENCE,
    ...INFERENCE,
    "/v1/hooks/evaluate",
    "/v1/hooks/webhook?guardrails=fuzz-guardrail",
    `/admin/v1/workspaces/${workspace}/configs`,
    `/admin/v1/workspaces/${workspace}/guardrails`,
    "/admin/v1/logs?limit=3",
  );
  return fc
    .record({
      route,
      method: fc.constant("POST" as const),
      key: fc.oneof(
        { weight: 16, arbitrary: fc.constant("workspace" as const) },
        { weight: 1, arbitrary: fc.constantFrom("admin" as const, "none" as const, "wrong" as const) },
      ),
      config: configHeader,
      strict: fc.option(fc.constantFrom("true", "false", "FALSE", "no", ""), { nil: undefined }),
      metadata: fc.option(fc.oneof(fc.constant('{"team":"a"}'), fc.string({ maxLength: 30 })), { nil: undefined }),
      body: fc.oneof(
        body,
        fc.record({
          side: fc.constantFrom("input", "output", "sideways"),
          guardrails: guardrailList,
          request: body,
          response: body,
        }),
        fc.record({ id: fc.string({ maxLength: 10 }), config }),
      ),
    })
    .map((c) => {
      // Admin routes are mostly called with the admin key, as they would be.
      const admin = c.route.startsWith("/admin/") ? { key: c.key === "workspace" ? ("admin" as const) : c.key } : {};
      return c.route.startsWith("/admin/v1/logs")
        ? { ...c, ...admin, method: "GET" as const, body: undefined }
        : { ...c, ...admin };
    });
}

function printable(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, "");
}

/** Runs the fuzz against a fresh managed gateway; throws (with fast-check's report) on a failure. */
export async function fuzzGateway(options: { runs: number; seed: number }): Promise<FuzzSummary> {
  const gw: ManagedTestGateway = await startManaged();
  const summary: FuzzSummary = {
    seed: options.seed,
    runs: 0,
    byStatus: {},
    byRoute: {},
    inferenceAnswered: 0,
    inferenceLogged: 0,
    slowestMs: 0,
  };
  try {
    const workspace = gw.keys.workspace_id;
    const admin = gw.keys.admin_key;
    await gw.call("POST", `/admin/v1/workspaces/${workspace}/guardrails`, {
      key: admin,
      body: { id: "fuzz-guardrail", ...denyHello, async: false },
    });
    await gw.call("POST", `/admin/v1/workspaces/${workspace}/configs`, {
      key: admin,
      body: { id: "fuzz-config", config: { input_guardrails: ["fuzz-guardrail"] } },
    });
    const keys = { workspace: gw.keys.api_key, admin, none: undefined, wrong: "gk-not-a-key-0000000000" };

    await fc.assert(
      fc.asyncProperty(call(workspace), async (c) => {
        const headers: Record<string, string> = {};
        const key = keys[c.key];
        if (key !== undefined) headers["x-gateway-api-key"] = key;
        if (c.config !== undefined) headers["x-gateway-config"] = printable(c.config);
        if (c.strict !== undefined) headers["x-gateway-strict-compliance"] = c.strict;
        if (c.metadata !== undefined) headers["x-gateway-metadata"] = printable(c.metadata);
        const raw =
          c.body && typeof c.body === "object" && "raw" in c.body ? String((c.body as { raw: unknown }).raw) : undefined;
        const payload = raw ?? (c.body === undefined ? undefined : JSON.stringify(c.body));
        if (payload !== undefined) headers["content-type"] = "application/json";
        const started = performance.now();
        let timer: NodeJS.Timeout | undefined;
        const answer = await Promise.race([
          gw.app.inject({
            method: c.method,
            url: c.route,
            headers,
            // Unknown keys throttle their address (server/auth-throttle.ts): they come from one of their own.
            ...(c.key === "wrong" && { remoteAddress: "192.0.2.66" }),
            ...(payload !== undefined && { payload }),
          }),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_LIMIT_MS} ms`)), ANSWER_LIMIT_MS);
          }),
        ]).finally(() => clearTimeout(timer));
        const elapsed = performance.now() - started;
        summary.runs++;
        summary.slowestMs = Math.max(summary.slowestMs, elapsed);
        summary.byStatus[answer.statusCode] = (summary.byStatus[answer.statusCode] ?? 0) + 1;
        const family = c.route.split("?")[0]?.replace(/ws_[\w-]+|[A-Za-z0-9_-]{20,}/g, ":id") ?? c.route;
        summary.byRoute[family] = (summary.byRoute[family] ?? 0) + 1;
        if (INFERENCE.includes(c.route) && c.key === "workspace") summary.inferenceAnswered++;
        if (answer.statusCode >= 500) throw new Error(`${c.route} answered ${answer.statusCode}: ${answer.body.slice(0, 300)}`);
      }),
      { numRuns: options.runs, seed: options.seed, endOnFailure: true },
    );

    const health = await gw.app.inject({ method: "GET", url: "/health" });
    if (health.statusCode !== 200) throw new Error(`/health answered ${health.statusCode} after the fuzz`);
    await gw.app.guardgate.drainLogs();
    await gw.managed.sink.flush();
    for (let cursor: string | undefined, first = true; first || cursor; first = false) {
      const page = await gw.managed.store.logs.query({ workspace_id: workspace, limit: 500, ...(cursor && { cursor }) });
      summary.inferenceLogged += page.items.filter((entry) => INFERENCE.includes(entry.route)).length;
      cursor = page.next_cursor ?? undefined;
    }
    return summary;
  } finally {
    await gw.close();
  }
}
