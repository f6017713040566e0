/**
 * The console's log list over a large store: seeds 100,000 request-log records (1% denied with
 * 446, 4% flagged with 246) into a real SQLite store, then times the admin API's list queries the
 * console sends (first page, each filter, a page deep in the cursor chain, one log view, the
 * analytics aggregate) and, when Chromium is installed, the console itself: from opening the log
 * list to 50 rows on screen, and paging. Prints a table, the query plan of the list query, and
 * writes bench/results/console-logs.json and .md.
 *
 * `npm run bench:logs` (RECORDS=20000 for a shorter run).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { chromium } from "playwright-core";
import { DATABASE_FILE } from "../server/store/data-dir.js";
import type { LogEntry } from "../server/store/log-types.js";
import { logEntry } from "../test/support/log-entry.js";
import { startManaged } from "../test/support/managed.js";

const RECORDS = Number(process.env.RECORDS ?? 100_000);
const ROUNDS = 20;
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function time(rounds: number, run: () => Promise<unknown>): Promise<{ p50: number; p95: number; max: number }> {
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 100) / 100;
  return { p50: round(percentile(samples, 50)), p95: round(percentile(samples, 95)), max: round(samples.at(-1) ?? 0) };
}

async function main(): Promise<void> {
  const gw = await startManaged();
  const workspace = gw.keys.workspace_id;
  const organization = gw.keys.organization_id;
  const key = gw.keys.admin_key;
  try {
    // Records a minute apart, newest now; every 100th denied, every 25th flagged.
    const seeded = performance.now();
    const now = Date.now();
    for (let start = 0; start < RECORDS; start += 2000) {
      const batch: LogEntry[] = [];
      for (let i = start; i < Math.min(RECORDS, start + 2000); i++) {
        const at = new Date(now - (RECORDS - i) * 60_000).toISOString();
        const status = i % 100 === 0 ? 446 : i % 25 === 0 ? 246 : 200;
        batch.push(
          logEntry(
            `log-${String(i).padStart(7, "0")}`,
            at,
            { organization_id: organization, workspace_id: workspace, status, model: i % 2 ? "gpt-a" : "gpt-b" },
            status === 200 ? [true, true] : [false, true],
          ),
        );
      }
      await gw.managed.store.logs.insert(batch);
    }
    const seedSeconds = (performance.now() - seeded) / 1000;

    const get = async (url: string) => {
      const answer = await gw.call("GET", url, { key });
      if (answer.status !== 200) throw new Error(`${url}: ${answer.status} ${answer.text}`);
      return answer.body;
    };
    // A page halfway down the list (page 1,000 of 2,000 at 100,000 records), by following cursors.
    const depth = Math.max(1, Math.floor(RECORDS / 100));
    let cursor: string | null = null;
    for (let page = 0; page < depth; page++) {
      const body = await get(`/admin/v1/logs?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      cursor = body.next_cursor;
    }
    const deep = cursor ?? "";
    const queries: Array<[string, string]> = [
      ["first page", "/admin/v1/logs?limit=50"],
      ["status=446", "/admin/v1/logs?limit=50&status=446"],
      ["status=246,446", "/admin/v1/logs?limit=50&status=246,446"],
      ["guardrail g1 failed", "/admin/v1/logs?limit=50&guardrail_id=g1&verdict=fail"],
      ["check wordCount failed", "/admin/v1/logs?limit=50&check_id=default.wordCount&verdict=fail"],
      ["model gpt-a", "/admin/v1/logs?limit=50&model=gpt-a"],
      ["matching nothing", "/admin/v1/logs?limit=50&model=none"],
      [`page ${depth + 1} (cursor)`, `/admin/v1/logs?limit=50&cursor=${encodeURIComponent(deep)}`],
      ["one log view", `/admin/v1/logs/log-${String(Math.floor(RECORDS / 2)).padStart(7, "0")}`],
      ["analytics, 24 hours", "/admin/v1/analytics/guardrails"],
    ];
    const rows: Array<{ query: string; p50: number; p95: number; max: number }> = [];
    for (const [name, url] of queries) rows.push({ query: name, ...(await time(ROUNDS, () => get(url))) });

    const db = new Database(path.join(gw.dir, DATABASE_FILE), { readonly: true });
    const list = (where: string) =>
      `SELECT l.* FROM request_logs l WHERE l.organization_id = @o AND ${where} ORDER BY l.created_at DESC, l.id DESC LIMIT 51`;
    const plans: Record<string, string[]> = {};
    for (const [name, sql] of Object.entries({
      "status=446": list("l.status IN (446)"),
      "guardrail g1 failed": list(
        "EXISTS (SELECT 1 FROM log_guardrails g WHERE g.log_id = l.id AND +g.guardrail_id = 'g1' AND g.verdict = 0)",
      ),
      "check wordCount failed": list(
        "EXISTS (SELECT 1 FROM log_checks c WHERE c.log_id = l.id AND +c.check_id = 'default.wordCount' AND c.verdict = 0)",
      ),
    })) {
      plans[name] = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ o: organization }) as Array<{ detail: string }>).map(
        (r) => r.detail,
      );
    }
    db.close();

    let browser: { firstRows: number; older: { p50: number; p95: number; max: number } } | undefined;
    if (existsSync(CHROMIUM)) {
      const url = await gw.app.listen({ host: "127.0.0.1", port: 0 });
      const launched = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
      try {
        const page = await launched.newPage({ viewport: { width: 1280, height: 860 } });
        await page.goto(`${url}/console/`);
        await page.fill("#key", key);
        await page.click("button[type=submit]");
        await page.locator(".role").waitFor();
        await page.goto(`${url}/console/#/logs`);
        await page.locator("tr[data-log-id]").nth(49).waitFor();
        // A full load of the page: its files, the key's record, the first page of logs.
        const started = performance.now();
        await page.reload();
        await page.locator("tr[data-log-id]").nth(49).waitFor();
        const firstRows = Math.round((performance.now() - started) * 10) / 10;
        const older = await time(10, async () => {
          const first = await page.locator("tr[data-log-id]").first().getAttribute("data-log-id");
          await page.click("button:has-text('Older')");
          // A function, not a string: the console's policy forbids eval in the page.
          await page.waitForFunction((id) => {
            const dom = globalThis as unknown as {
              document: { querySelector(s: string): { getAttribute(n: string): string } | null };
            };
            return dom.document.querySelector("tr[data-log-id]")?.getAttribute("data-log-id") !== id;
          }, first);
        });
        browser = { firstRows, older };
      } finally {
        await launched.close();
      }
    }

    const report = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? "", node: process.version },
      note: "measured on a machine shared with other work; figures are indicative",
      records: RECORDS,
      seed_seconds: Math.round(seedSeconds * 10) / 10,
      queries_ms: rows,
      list_query_plans: plans,
      console_ms: browser ?? null,
    };
    console.table(rows);
    for (const [name, plan] of Object.entries(plans)) console.log(`query plan, ${name}: ${plan.join(" | ")}`);
    if (browser)
      console.log(`console: log list with 50 rows in ${browser.firstRows} ms; "Older" page p50 ${browser.older.p50} ms`);
    const here = path.dirname(fileURLToPath(import.meta.url));
    // Compiled to dist/bench: the results belong beside the sources, in bench/results.
    const out = path.join(here, "../../bench/results");
    mkdirSync(out, { recursive: true });
    writeFileSync(path.join(out, "console-logs.json"), `${JSON.stringify(report, null, 2)}\n`);
    const md = [
      `# Console log list over ${RECORDS.toLocaleString("en")} records`,
      "",
      `${report.date}, ${report.machine.cpus} CPUs (${report.machine.model}), Node ${report.machine.node}; ${report.note}.`,
      "",
      "| query (admin API, through the app) | p50 ms | p95 ms | max ms |",
      "|---|---|---|---|",
      ...rows.map((r) => `| ${r.query} | ${r.p50} | ${r.p95} | ${r.max} |`),
      "",
      browser
        ? `In Chromium: the log list shows its first 50 rows ${browser.firstRows} ms after opening; "Older" pages in ${browser.older.p50} ms (p50), ${browser.older.p95} ms (p95).`
        : "Chromium was not installed: no browser figures.",
      "",
      "Query plans of the list:",
      "",
      ...Object.entries(plans).map(([name, plan]) => `- ${name}: ${plan.join("; ")}`),
      "",
    ].join("\n");
    writeFileSync(path.join(out, "console-logs.md"), md);
  } finally {
    await gw.close();
  }
}

await main();
