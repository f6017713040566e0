/**
 * Replay over a real store: 10,000 logged requests (seeded straight into the log store, in batches)
 * replayed by the built `guardgate replay` command in the worker pool, whose counts must match
 * evaluating the same guardrails request by request; saved reports compared after the policy
 * changed; the admin endpoint and who may use it; policies saved from a file by the CLI.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine, type GuardrailDefinition } from "../../index.js";
import type { ReplayReport } from "../../server/policies/replay-report.js";
import type { NewLogEntry } from "../../server/store/log-types.js";
import { openStore } from "../../server/store/open.js";
import { type ManagedTestGateway, startManaged } from "../support/managed.js";

const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../dist/cli/bin.js");
const LOGS = 10_000;
const BASE = Date.parse("2026-01-01T00:00:00.000Z");

/** Denies a request mentioning a secret; flags one of more than eight words. */
const NO_SECRET: GuardrailDefinition = {
  id: "no-secret",
  deny: true,
  checks: [{ id: "default.regexMatch", parameters: { rule: "secret", not: true } }],
};
const BRIEF: GuardrailDefinition = { id: "brief", checks: [{ id: "default.wordCount", parameters: { maxWords: 8 } }] };

function text(i: number): string {
  if (i % 7 === 0) return `here is a secret number ${i}`;
  if (i % 5 === 0) return `one two three four five six seven eight nine ${i}`;
  return `hello there number ${i}`;
}

let dir: string;
let gw: ManagedTestGateway | undefined;
let workspaceId: string;
let organizationId: string;
const bodies = new Map<string, Record<string, unknown>>();

function entry(i: number): NewLogEntry {
  const id = `log_${String(i).padStart(6, "0")}`;
  const request = { model: "m", messages: [{ role: "user", content: text(i) }] };
  // Every 50th request was logged without its body: replay must skip it and say so.
  const kept = i % 50 !== 0;
  if (kept) bodies.set(id, request);
  return {
    id,
    created_at: new Date(BASE + i * 1000).toISOString(),
    organization_id: organizationId,
    workspace_id: workspaceId,
    api_key_id: "key_test",
    route: "/v1/chat/completions",
    request_type: "chatComplete",
    status: 200,
    latency_ms: 5,
    upstream_latency_ms: 4,
    provider: "@mock",
    provider_id: null,
    integration_id: null,
    model: "m",
    config_id: null,
    cache_status: null,
    retry_count: 0,
    target: "",
    input_tokens: 4,
    output_tokens: 4,
    cost: null,
    error_code: null,
    record: {
      request_type: "chatComplete",
      hook_results: { before_request_hooks: [], after_request_hooks: [] },
      ...(kept && { request, response: { choices: [{ message: { role: "assistant", content: "ok" } }] } }),
    },
  };
}

function guardgate(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args, "--data-dir", dir], {
      env: { ...process.env, GUARDGATE_SECRET_KEY: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "guardgate-replay-"));
  gw = await startManaged({ dir });
  workspaceId = gw.keys.workspace_id;
  organizationId = gw.keys.organization_id;
  const saved = await gw.call("POST", "/admin/v1/policies", {
    key: gw.keys.admin_key,
    body: { id: "screen", name: "Screen", workspace_id: workspaceId, input_guardrails: [NO_SECRET, BRIEF] },
  });
  expect(saved.status).toBe(201);
  for (let start = 0; start < LOGS; start += 1000) {
    await gw.managed.store.logs.insert(Array.from({ length: 1000 }, (_, k) => entry(start + k)));
  }
});

afterAll(async () => {
  await gw?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The counts of evaluating the guardrails on each kept request, one request at a time. */
async function requestByRequest(guardrails: GuardrailDefinition[]) {
  const engine = await createEngine({ executor: "inline" });
  const counts = { passed: 0, flagged: 0, denied: 0, checks: new Map<string, { passed: number; failed: number }>() };
  const statuses = new Map<string, number>();
  try {
    for (const [id, request] of bodies) {
      const evaluation = await engine.evaluate({
        side: "input",
        guardrails: guardrails.map((g) => ({ ...g, async: false })),
        requestType: "chatComplete",
        request,
      });
      statuses.set(id, evaluation.status);
      if (evaluation.status === 446) counts.denied++;
      else if (evaluation.status === 246) counts.flagged++;
      else counts.passed++;
      for (const result of evaluation.results) {
        for (const check of result.checks) {
          const key = `${result.id} ${check.id}`;
          const line = counts.checks.get(key) ?? { passed: 0, failed: 0 };
          if (check.verdict) line.passed++;
          else line.failed++;
          counts.checks.set(key, line);
        }
      }
    }
  } finally {
    await engine.close();
  }
  return { counts, statuses };
}

describe("the replay endpoint", () => {
  it("replays a policy for an admin, saves the report, and refuses a member", async () => {
    const ran = await gw!.call("POST", "/admin/v1/replay", {
      key: gw!.keys.admin_key,
      body: { policy_id: "screen", limit: 500, save: "first 500" },
    });
    expect(ran.status).toBe(200);
    const report = ran.body.report as ReplayReport;
    expect(report).toMatchObject({ format: "guardgate.replay/1", subject: { kind: "policy", id: "screen" } });
    expect(report.totals.logs).toBe(500);
    expect(report.totals.passed + report.totals.flagged + report.totals.denied + report.totals.skipped).toBe(500);
    expect(report.totals.denied).toBeGreaterThan(0);
    expect(ran.body.saved).toMatchObject({ name: "first 500", workspace_id: workspaceId });
    const listed = await gw!.call("GET", "/admin/v1/replay-reports", { key: gw!.keys.admin_key });
    expect(listed.body.data.map((r: { id: string }) => r.id)).toEqual([ran.body.saved.id]);
    const one = await gw!.call("GET", `/admin/v1/replay-reports/${ran.body.saved.id}`, { key: gw!.keys.admin_key });
    expect(one.body.report.totals).toEqual(report.totals);

    const member = await gw!.call("POST", "/admin/v1/replay", { key: gw!.keys.api_key, body: { policy_id: "screen" } });
    expect(member.status).toBe(403);
    expect((await gw!.call("GET", `/admin/v1/replay-reports/${ran.body.saved.id}`, { key: gw!.keys.api_key })).status).toBe(404);
    const both = await gw!.call("POST", "/admin/v1/replay", {
      key: gw!.keys.admin_key,
      body: { policy_id: "screen", guardrail_id: "x", workspace_id: workspaceId },
    });
    expect(both.status).toBe(400);
  });
});

describe("guardgate replay", () => {
  beforeAll(async () => {
    await gw?.close();
    gw = undefined;
  });

  let firstReport: string;

  it("replays 10,000 logged requests in the pool with progress and a summary table; counts match request-by-request evaluation", async () => {
    const run = await guardgate(["replay", "--policy", "screen", "--save", "v1"]);
    expect(run.stderr).not.toContain("Error");
    expect(run.code).toBe(0);
    // Not a terminal: a plain progress line per tenth.
    expect(run.stderr).toContain(`replayed 1000/${LOGS} (10%)`);
    expect(run.stderr).toContain(`replayed ${LOGS}/${LOGS} (100%)`);

    const { counts } = await requestByRequest([NO_SECRET, BRIEF]);
    const skipped = LOGS - bodies.size;
    expect(run.stdout).toContain(`Replay of policy "screen" over ${LOGS} logged requests`);
    expect(run.stdout).toMatch(new RegExp(`denied \\(446\\)\\s+${counts.denied}\\s`));
    expect(run.stdout).toMatch(new RegExp(`flagged \\(246\\)\\s+${counts.flagged}\\s`));
    expect(run.stdout).toMatch(new RegExp(`passed\\s+${counts.passed}\\s`));
    expect(run.stdout).toMatch(new RegExp(`skipped \\(no body kept\\)\\s+${skipped}`));
    expect(run.stdout).toContain("Latency the checks would have added per request");

    firstReport = /saved as report (\S+)/.exec(run.stdout)?.[1] as string;
    expect(firstReport).toMatch(/^rpt_/);
    const { store } = await openStore({ dataDir: dir, env: {}, externalChangePollMs: 0 });
    const saved = (await store.replayReports.get(firstReport))?.report as unknown as ReplayReport;
    await store.close();
    expect(saved.totals).toEqual({
      logs: LOGS,
      replayed: bodies.size,
      skipped,
      passed: counts.passed,
      flagged: counts.flagged,
      denied: counts.denied,
    });
    for (const line of saved.checks) {
      const expected = counts.checks.get(`${line.guardrail} ${line.check}`);
      expect({ passed: line.passed, failed: line.failed, errored: line.errored }).toEqual({ ...expected, errored: 0 });
    }
    expect(saved.checks).toHaveLength(counts.checks.size);
  }, 180_000);

  it("saves a stricter policy from a file and tells which requests it would deny that the first passed", async () => {
    const strict: GuardrailDefinition = {
      ...BRIEF,
      deny: true,
      checks: [{ id: "default.wordCount", parameters: { maxWords: 3 } }],
    };
    const file = path.join(dir, "policies.yaml");
    writeFileSync(
      file,
      JSON.stringify({ policies: [{ id: "screen", workspace_id: workspaceId, input_guardrails: [NO_SECRET, strict] }] }),
    );
    const applied = await guardgate(["policies", "apply", file]);
    expect(applied.stdout).toContain("updated policy screen");
    expect((await guardgate(["policies", "list"])).stdout).toContain(
      `screen  ${workspaceId}  enforce  all requests  no-secret,brief`,
    );

    const run = await guardgate(["replay", "--policy", "screen", "--compare", firstReport, "--from", "2026-01-01T00:00:00Z"]);
    expect(run.code).toBe(0);
    const before = await requestByRequest([NO_SECRET, BRIEF]);
    const after = await requestByRequest([NO_SECRET, strict]);
    // Flagged before is not passed: only requests that passed outright are newly denied.
    const newlyDenied = [...bodies.keys()].filter((id) => before.statuses.get(id) === 200 && after.statuses.get(id) === 446);
    expect(run.stdout).toContain(`Compared over ${bodies.size} requests both replays read:`);
    const match = /policy "screen" would deny (\d+) requests policy "screen" passed: here they are/.exec(run.stdout);
    expect(match).not.toBeNull();
    expect(newlyDenied.length).toBeGreaterThan(0);
    expect(Number(match?.[1])).toBe(newlyDenied.length);
    expect(run.stdout).toContain(`\n  ${newlyDenied.toSorted().at(-1)}\n`);
    expect(run.stdout).toContain("… and");
    const bad = await guardgate(["replay", "--guardrail", "x"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--guardrail needs --workspace");
  }, 180_000);

  it("draws a progress bar on a terminal", async () => {
    // `script` (util-linux, in every Debian) gives the command a terminal of its own.
    const command = [process.execPath, bin, "replay", "--policy", "screen", "--limit", "300", "--data-dir", dir]
      .map((part) => `'${part}'`)
      .join(" ");
    const run = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn("script", ["-qec", command, "/dev/null"], {
        env: { ...process.env, GUARDGATE_SECRET_KEY: "" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (chunk) => (out += chunk));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, out }));
    });
    expect(run.code).toBe(0);
    expect(run.out).toContain("\rreading logs: 300");
    // The line is cleared (ESC [2K) and drawn again in place.
    expect(run.out).toContain(`\r\u001b[2Kreplaying [${"#".repeat(30)}] 300/300 (100%)`);
    expect(run.out).not.toContain("replayed 300/300");
    expect(run.out).toContain('Replay of policy "screen" over 300 logged requests');
  });
});
