/**
 * `guardgate logs tail`: the latest request logs of the store, one line each (or JSON lines), and
 * with --follow the new ones as the gateway writes them. With `--url` (remote.ts), a running
 * gateway's, through its admin API.
 */
import type { LogSummary } from "../server/logs/view.js";
import { OPERATOR } from "../server/management/actor.js";
import type { LogFilter } from "../server/store/log-types.js";
import { type CommandArgs, DATA_DIR_FLAG, type Flag, parseCommand, printHelp } from "./args.js";
import type { Command } from "./command.js";
import { type AdminClient, REMOTE_FLAGS, remoteOf } from "./remote.js";
import { feedbackFlag, openStoreAccess, runCommand, storeOptionsOf, UsageError } from "./store-access.js";

const ARGS = {
  usage: [
    "logs tail [-n 20] [--follow] [--workspace ID] [--status 446,246] [--guardrail ID] [--check ID]\n                          [--verdict pass|fail] [--model M] [--feedback-min N] [--feedback-max N] [--json] [--interval 1000] [--data-dir DIR | --url URL --api-key KEY]",
  ],
  flags: {
    n: {
      type: "string",
      short: "n",
      default: "20",
      value: "N",
      help: "how many of the latest records to show first (default 20)",
    },
    follow: { type: "boolean", short: "f", default: false, help: "keep printing new records as they are written (Ctrl-C stops)" },
    workspace: { type: "string", value: "ID", help: "only this workspace's records" },
    status: { type: "string", value: "CODES", help: "only these statuses, comma-separated (446,246)" },
    guardrail: { type: "string", value: "ID", help: "only records where this guardrail ran" },
    check: { type: "string", value: "ID", help: "only records where this check ran" },
    verdict: { type: "string", value: "pass|fail", help: "only records whose guardrails passed, or failed" },
    model: { type: "string", value: "M", help: "only requests for this model" },
    "feedback-min": { type: "string", value: "N", help: "only records with feedback of at least N (-10…10)" },
    "feedback-max": {
      type: "string",
      value: "N",
      help: "only records with feedback of at most N (a negative N as --feedback-max=-5)",
    },
    json: { type: "boolean", default: false, help: "one JSON object per line instead of a summary line" },
    interval: {
      type: "string",
      default: "1000",
      value: "MS",
      help: "how often --follow looks for new records, in ms (default 1000)",
    },
    "data-dir": DATA_DIR_FLAG,
    ...REMOTE_FLAGS,
  },
} as const satisfies CommandArgs<Record<string, Flag>>;

/** One page of records, newest first. */
type Page = { items: LogSummary[]; next_cursor: string | null };

/** `GET /admin/v1/logs` with the filter as its query (statuses comma-separated, as the route takes them). */
function remoteQuery(client: AdminClient): (filter: LogFilter) => Promise<Page> {
  return async (filter) => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(filter)) {
      if (value !== undefined) params.set(key, Array.isArray(value) ? value.join(",") : String(value));
    }
    const page = await client.call<{ data: LogSummary[]; next_cursor: string | null }>("GET", `/logs?${params}`);
    return { items: page.data, next_cursor: page.next_cursor };
  };
}

function line(entry: LogSummary): string {
  const g = entry.guardrails;
  const checks = g.checks_passed + g.checks_failed + g.checks_errored;
  const guardrails = checks
    ? `checks ${g.checks_passed} passed, ${g.checks_failed} failed${g.checks_errored ? `, ${g.checks_errored} errored` : ""}`
    : "no guardrails";
  return [
    entry.created_at,
    String(entry.status),
    entry.route,
    entry.model ?? "-",
    `${entry.latency_ms.toFixed(1)} ms`,
    guardrails,
    entry.workspace_id,
    entry.id,
  ].join("  ");
}

const logs: Command = (argv) =>
  runCommand("logs", async () => {
    const { values, positionals, help } = parseCommand(ARGS, argv);
    const [action] = positionals;
    if (help || !action) return printHelp(ARGS, help);
    if (action !== "tail") throw new UsageError(`unknown action "${action}"; use tail`);
    const count = Number(values.n);
    if (!Number.isInteger(count) || count < 0 || count > 500) throw new UsageError("-n must be an integer from 0 to 500");
    const interval = Number(values.interval);
    if (!Number.isInteger(interval) || interval < 50) throw new UsageError("--interval must be an integer of at least 50 (ms)");
    if (values.verdict !== undefined && values.verdict !== "pass" && values.verdict !== "fail") {
      throw new UsageError("--verdict must be pass or fail");
    }
    if (values.status !== undefined && !/^\d{3}(,\d{3})*$/.test(values.status)) {
      throw new UsageError("--status must be statuses separated by commas, e.g. 246,446");
    }
    const feedbackMin = feedbackFlag(values["feedback-min"], "--feedback-min");
    const feedbackMax = feedbackFlag(values["feedback-max"], "--feedback-max");
    const filter: LogFilter = {
      ...(values.workspace && { workspace_id: values.workspace }),
      ...(values.status && { status: values.status.split(",").map(Number) }),
      ...(values.guardrail && { guardrail_id: values.guardrail }),
      ...(values.check && { check_id: values.check }),
      ...(values.verdict && { verdict: values.verdict as "pass" | "fail" }),
      ...(values.model && { model: values.model }),
      ...(feedbackMin !== undefined && { feedback_min: feedbackMin }),
      ...(feedbackMax !== undefined && { feedback_max: feedbackMax }),
    };
    const remote = remoteOf(values);
    const access = remote ? undefined : await openStoreAccess({ ...storeOptionsOf(values), checks: false });
    const query = remote ? remoteQuery(remote) : (f: LogFilter) => access!.management.logs.query(OPERATOR, f);
    const print = (entry: LogSummary) => process.stdout.write(`${values.json ? JSON.stringify(entry) : line(entry)}\n`);
    try {
      const first = count > 0 ? await query({ ...filter, limit: count }) : { items: [] };
      const shown = new Set<string>();
      for (const entry of [...first.items].reverse()) {
        print(entry);
        shown.add(entry.id);
      }
      if (!values.follow) return 0;
      let since = first.items[0]?.created_at ?? new Date().toISOString();
      // What already exists was either printed above or not asked for (-n): only new records follow.
      const lookBack = () => new Date(Date.parse(since) - 60_000).toISOString();
      const existing = async (): Promise<LogSummary[]> => {
        const found: LogSummary[] = [];
        let cursor: string | null = null;
        do {
          const page: Page = await query({
            ...filter,
            from: lookBack(),
            limit: 500,
            ...(cursor && { cursor }),
          });
          found.push(...page.items);
          cursor = page.next_cursor;
        } while (cursor);
        return found;
      };
      for (const entry of await existing()) shown.add(entry.id);
      process.stderr.write("guardgate logs: following new records (Ctrl-C stops)\n");
      let stopped = false;
      const stop = () => {
        stopped = true;
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      while (!stopped) {
        await new Promise((resolve) => setTimeout(resolve, interval));
        // A record carries its request's start time and reaches the store in a batch, so it may
        // be older than the newest printed: look back a minute and skip what was printed.
        const fresh = await existing();
        for (const entry of fresh.reverse()) {
          if (shown.has(entry.id)) continue;
          print(entry);
          shown.add(entry.id);
          if (entry.created_at > since) since = entry.created_at;
        }
        // Only the last minute's ids can come back; older ones need not be remembered.
        if (shown.size > 10_000) for (const id of [...shown].slice(0, shown.size - 5_000)) shown.delete(id);
      }
      return 0;
    } finally {
      await access?.close();
    }
  });

export default logs;
