/**
 * The request log list: the admin API's filters (time, status, guardrail, check, verdict, model,
 * workspace) kept in the address, pages of 50 by cursor, the first page refreshed every few
 * seconds, 246 and 446 marked.
 */
import { useEffect, useState } from "preact/hooks";
import type { LogSummary } from "../../../server/logs/view";
import { admin, type List } from "../api";
import { go, href, useRoute } from "../router";
import { useSession } from "../session";
import { ErrorBox, ms, PageHead, StatusBadge, when } from "../ui";

const FILTERS = [
  "from",
  "to",
  "status",
  "guardrail_id",
  "check_id",
  "verdict",
  "model",
  "feedback_min",
  "feedback_max",
  "workspace_id",
] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

const REFRESH_MS = 5000;
const PAGE_SIZE = 50;

/** A datetime-local value as an ISO instant, or undefined. */
function isoOf(local: string | undefined): string | undefined {
  if (!local) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

export function Logs() {
  const { me } = useSession();
  const route = useRoute();
  const filters: Filters = {};
  for (const name of FILTERS) {
    const value = route.query.get(name);
    if (value) filters[name] = value;
  }
  const [draft, setDraft] = useState<Filters>(filters);
  const [cursors, setCursors] = useState<string[]>([]);
  const [page, setPage] = useState<{ data: LogSummary[]; next_cursor: string | null }>();
  const [error, setError] = useState<unknown>();
  const [live, setLive] = useState(true);
  const [workspaces, setWorkspaces] = useState<Array<{ id: string; name: string }>>([]);
  const cursor = cursors[cursors.length - 1];
  const key = JSON.stringify(filters);

  useEffect(() => {
    if (me.role === "org_admin")
      admin<List<{ id: string; name: string }>>("/workspaces").then(
        (l) => setWorkspaces(l.data),
        () => {},
      );
  }, [me.id]);

  useEffect(() => {
    let stopped = false;
    const load = () =>
      admin<{ data: LogSummary[]; next_cursor: string | null }>("/logs", {
        ...filters,
        from: isoOf(filters.from),
        to: isoOf(filters.to),
        limit: PAGE_SIZE,
        cursor,
      }).then(
        (answer) => {
          if (stopped) return;
          setPage(answer);
          setError(undefined);
        },
        (failure: unknown) => !stopped && setError(failure),
      );
    void load();
    // Only the newest page moves; older pages stay still while read.
    const timer = live && !cursor ? setInterval(load, REFRESH_MS) : undefined;
    return () => {
      stopped = true;
      if (timer) clearInterval(timer);
    };
  }, [key, cursor, live]);

  const apply = (next: Filters) => {
    setCursors([]);
    go(["logs"], next);
  };
  const input = (
    name: keyof Filters,
    labelText: string,
    type: "text" | "datetime-local" | "number" = "text",
    placeholder = "",
  ) => (
    <label class="filter">
      <span>{labelText}</span>
      <input
        name={name}
        {...({ type } as { type: "text" })}
        placeholder={placeholder}
        value={draft[name] ?? ""}
        onInput={(e) => setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value })}
      />
    </label>
  );

  return (
    <section>
      <PageHead title="Request logs">
        <label class="inline">
          <input type="checkbox" name="live" checked={live} onChange={(e) => setLive((e.target as HTMLInputElement).checked)} />{" "}
          Auto-refresh
        </label>
      </PageHead>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          apply(draft);
        }}
      >
        {input("from", "From", "datetime-local")}
        {input("to", "To", "datetime-local")}
        {input("status", "Status", "text", "246,446")}
        {input("guardrail_id", "Guardrail")}
        {input("check_id", "Check", "text", "default.regexMatch")}
        <label class="filter">
          <span>Verdict</span>
          <select
            name="verdict"
            value={draft.verdict ?? ""}
            onChange={(e) => setDraft({ ...draft, verdict: (e.target as HTMLSelectElement).value })}
          >
            <option value="">any</option>
            <option value="pass">pass</option>
            <option value="fail">fail</option>
          </select>
        </label>
        {input("model", "Model")}
        {input("feedback_min", "Feedback from", "number", "-10")}
        {input("feedback_max", "Feedback to", "number", "10")}
        {me.role === "org_admin" && (
          <label class="filter">
            <span>Workspace</span>
            <select
              name="workspace_id"
              value={draft.workspace_id ?? ""}
              onChange={(e) => setDraft({ ...draft, workspace_id: (e.target as HTMLSelectElement).value })}
            >
              <option value="">all</option>
              {workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <div class="filter-actions">
          <button type="submit">Filter</button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setDraft({});
              apply({});
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <ErrorBox error={error} />
      {page && (
        <>
          <div class="table-wrap">
            <table class="logs">
              <thead>
                <tr>
                  <th>Time</th>
                  <th>Status</th>
                  <th>Route</th>
                  <th>Model</th>
                  <th>Latency</th>
                  <th>Checks</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((log) => (
                  <tr key={log.id} data-log-id={log.id} class={`status-${log.status}`}>
                    <td>
                      <a href={href(["logs", log.id])}>{when(log.created_at)}</a>
                    </td>
                    <td>
                      <StatusBadge status={log.status} />
                      {log.retry_count > 0 && <span class="muted"> ↻{log.retry_count}</span>}
                    </td>
                    <td>
                      {log.route}
                      {log.try_it && (
                        <span class="tag" data-field="try-it" title="Sent by Try it in this console">
                          Try it
                        </span>
                      )}
                    </td>
                    <td>
                      {log.model ?? "–"}
                      {log.provider && <span class="muted"> {log.provider}</span>}
                    </td>
                    <td>{ms(log.latency_ms)}</td>
                    <td>
                      <span class="passed-count">{log.guardrails.checks_passed} passed</span>
                      {log.guardrails.checks_failed > 0 && (
                        <span class="failed-count"> · {log.guardrails.checks_failed} failed</span>
                      )}
                      {log.guardrails.checks_errored > 0 && (
                        <span class="errored-count"> · {log.guardrails.checks_errored} errored</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {page.data.length === 0 && <p class="muted">No requests match.</p>}
          <div class="pager">
            <button type="button" class="secondary" disabled={!cursors.length} onClick={() => setCursors(cursors.slice(0, -1))}>
              Newer
            </button>
            <button
              type="button"
              class="secondary"
              disabled={!page.next_cursor}
              onClick={() => page.next_cursor && setCursors([...cursors, page.next_cursor])}
            >
              Older
            </button>
          </div>
        </>
      )}
    </section>
  );
}
