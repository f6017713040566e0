/**
 * The log view of one request (spec §2.5): the request's facts, an overview of checks passed and
 * failed, every guardrail with its verdict, deny, async and transformed flags, every check with
 * its verdict, latency, error and data (its explanation first), the feedback object, the attempts
 * of a retried or fallen-back request, what the provider's own content filter said, and the
 * bodies when they were kept.
 */
import { admin } from "../api";
import { href } from "../router";
import { Await, Json, ms, PageHead, StatusBadge, useLoad, Verdict, when } from "../ui";
import type { Feedback } from "../../../core/index";
import type { AttemptRecord, GuardrailView, LogView } from "../../../server/logs/view";
import type { ProviderFilters } from "../../../server/logs/attempt-record";

/** One sentence on the provider's content filter: which categories it filtered, on which side. */
function filterSummary(filters: ProviderFilters): string {
  const hits: string[] = [];
  for (const side of ["prompt", "completion"] as const) {
    for (const [category, verdict] of Object.entries(filters[side] ?? {})) {
      if (verdict.filtered)
        hits.push(`${side} ${category.replaceAll("_", " ")}${verdict.severity ? ` (${verdict.severity})` : ""}`);
    }
  }
  const filter = `The provider's content filter (${filters.source})`;
  if (hits.length) return `${filter} filtered: ${hits.join(", ")}.`;
  return filters.filtered ? `${filter} cut the answer.` : `${filter} filtered nothing.`;
}

/** The guardrails an attempt ran, each with its verdict: `brief failed, tone passed`. */
function attemptGuardrails(attempt: AttemptRecord): string {
  const hooks = attempt.hook_results;
  const all = [...(hooks?.before_request_hooks ?? []), ...(hooks?.after_request_hooks ?? [])];
  return all.length ? all.map((g) => `${g.id} ${g.verdict ? "passed" : "failed"}`).join(", ") : "–";
}

/**
 * The attempts of a retried or fallen-back request, one fixed column per field: attempts differ in
 * which fields they carry (only a failed one has an error), so no column may come from one of them.
 */
function Attempts({ attempts }: { attempts: AttemptRecord[] }) {
  return (
    <>
      <h2>Attempts</h2>
      <div class="table-wrap">
        <table class="attempts">
          <thead>
            <tr>
              <th>#</th>
              <th>Target</th>
              <th>Provider</th>
              <th>Model</th>
              <th>Status</th>
              <th>Latency</th>
              <th>Cache</th>
              <th>Guardrails</th>
              <th>Error</th>
            </tr>
          </thead>
          <tbody>
            {attempts.map((attempt, index) => (
              <tr key={index} data-attempt={index}>
                <td>{index + 1}</td>
                <td data-field="target">{attempt.target === "" ? "root" : attempt.target}</td>
                <td data-field="provider">{attempt.provider ?? "–"}</td>
                <td data-field="model">{attempt.model ?? "–"}</td>
                <td data-field="status">
                  <StatusBadge status={attempt.status} />
                </td>
                <td data-field="latency">
                  {ms(attempt.latency_ms)}
                  {attempt.before_upstream && <span class="muted"> (no upstream call)</span>}
                </td>
                <td data-field="cache">{attempt.cache_status ?? "–"}</td>
                <td data-field="guardrails">{attemptGuardrails(attempt)}</td>
                <td data-field="error">{attempt.error ? `${attempt.error.code}: ${attempt.error.message}` : "–"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function scalar(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** A check's data: the explanation as a sentence, the other fields as a list. */
function CheckData({ data }: { data: Record<string, unknown> }) {
  const { explanation, ...rest } = data;
  const entries = Object.entries(rest);
  return (
    <div class="check-data">
      {typeof explanation === "string" && <p class="explanation">{explanation}</p>}
      {entries.length > 0 && (
        <dl class="kv">
          {entries.map(([name, value]) => (
            <div key={name}>
              <dt>{name}</dt>
              <dd>{scalar(value)}</dd>
            </div>
          ))}
        </dl>
      )}
    </div>
  );
}

function errorText(error: unknown): string {
  if (typeof error === "string") return error;
  if (error && typeof error === "object") {
    const { name, message } = error as { name?: unknown; message?: unknown };
    if (typeof message === "string") return typeof name === "string" ? `${name}: ${message}` : message;
  }
  return JSON.stringify(error);
}

function idList(value: unknown): string[] {
  return typeof value === "string" && value ? value.split(",").map((s) => s.trim()) : [];
}

function FeedbackView({ feedback }: { feedback: Feedback }) {
  const { successfulChecks, failedChecks, erroredChecks, ...other } = feedback.metadata ?? {};
  const lists: Array<[string, string, unknown]> = [
    ["Successful checks", "successful", successfulChecks],
    ["Failed checks", "failed", failedChecks],
    ["Errored checks", "errored", erroredChecks],
  ];
  return (
    <div class="feedback">
      <dl class="kv">
        <div>
          <dt>value</dt>
          <dd data-field="feedback-value">{scalar(feedback.value)}</dd>
        </div>
        <div>
          <dt>weight</dt>
          <dd data-field="feedback-weight">{scalar(feedback.weight)}</dd>
        </div>
        {Object.entries(other).map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{scalar(value)}</dd>
          </div>
        ))}
      </dl>
      <div class="check-lists">
        {lists.map(([title, kind, value]) => (
          <div key={kind} data-feedback={kind}>
            <h4>{title}</h4>
            {idList(value).length ? (
              <ul>
                {idList(value).map((id) => (
                  <li key={id}>{id}</li>
                ))}
              </ul>
            ) : (
              <p class="muted">none</p>
            )}
          </div>
        ))}
      </div>
    </div>
  );
}

function GuardrailCard({ view, configId }: { view: GuardrailView; configId: string | null }) {
  return (
    <article class="guardrail" data-guardrail={view.id}>
      <header>
        <h3>{view.id}</h3>
        <span class="tag">{view.side}</span>
        <Verdict outcome={view.verdict} />
        {/* The result's deny says whether this guardrail denied the request, not its setting: a
            passing guardrail never denies, whatever it was set to do on failure. */}
        {!view.verdict && (
          <span class={`tag ${view.deny ? "on" : ""}`} data-field="denied">
            {view.deny ? "denied" : "did not deny"}
          </span>
        )}
        <span class={`tag ${view.async ? "on" : ""}`}>{view.async ? "async" : "sync"}</span>
        {view.transformed && <span class="tag on">transformed</span>}
        <span class="muted">{ms(view.execution_time)}</span>
      </header>
      <p class="source" data-field="source">
        {view.policy ? (
          <>
            From policy{" "}
            <a href={href(["policies", view.policy.id])} data-policy={view.policy.id}>
              {view.policy.name}
            </a>{" "}
            <code>{view.policy.id}</code>
            {view.monitor ? (
              <span class="tag on" data-field="monitor">
                monitor: logged, never acted on
              </span>
            ) : (
              <span class="tag">enforce</span>
            )}
          </>
        ) : configId ? (
          <>
            From config <code>{configId}</code>
          </>
        ) : (
          "From the request"
        )}
      </p>
      <p class="counts">
        {view.checks_passed} passed · {view.checks_failed} failed · {view.checks_errored} errored
      </p>
      <div class="table-wrap">
        <table class="checks">
          <thead>
            <tr>
              <th>Check</th>
              <th>Verdict</th>
              <th>Latency</th>
              <th>Details</th>
            </tr>
          </thead>
          <tbody>
            {view.checks.map((check, index) => (
              <tr key={index} data-check={check.id}>
                <td>{check.id}</td>
                <td data-field="verdict">
                  <Verdict outcome={check.outcome} />
                </td>
                <td data-field="latency">{ms(check.execution_time)}</td>
                <td>
                  {check.error !== undefined && <p class="error">{errorText(check.error)}</p>}
                  <CheckData data={check.data} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {/* Only a guardrail set to give feedback has any: "No feedback." under every other says nothing. */}
      {view.feedback && (
        <>
          <h4>Feedback</h4>
          <FeedbackView feedback={view.feedback} />
        </>
      )}
    </article>
  );
}

/** The guardrails that failed first (those that denied before those that did not), else in the order they ran. */
function failedFirst(views: GuardrailView[]): GuardrailView[] {
  const rank = (view: GuardrailView) => (view.verdict ? 2 : view.deny ? 0 : 1);
  return [...views].sort((a, b) => rank(a) - rank(b));
}

export function LogDetail({ id }: { id: string }) {
  const loaded = useLoad(() => admin<LogView>(`/logs/${encodeURIComponent(id)}`), [id]);
  return (
    <section>
      <p>
        <a href={href(["logs"])}>← Logs</a>
      </p>
      <Await loaded={loaded}>
        {(log) => {
          const overview = log.guardrails;
          const facts: Array<[string, string]> = [
            ["Time", when(log.created_at)],
            ["Route", log.route],
            ["Model", log.model ?? "–"],
            ["Provider", log.provider ?? "–"],
            ["Latency", ms(log.latency_ms)],
            ["Upstream latency", ms(log.upstream_latency_ms)],
            ["Config", log.config_id ?? "–"],
            ["Retries", String(log.retry_count)],
            ["Cache", log.cache_status ?? "–"],
            ["Tokens", `${log.input_tokens ?? "–"} in · ${log.output_tokens ?? "–"} out`],
            ["Workspace", log.workspace_id],
            ["Request id", log.id],
          ];
          return (
            <>
              <PageHead title="Request">
                <StatusBadge status={log.status} />
              </PageHead>
              <dl class="facts">
                {facts.map(([name, value]) => (
                  <div key={name} data-fact={name}>
                    <dt>{name}</dt>
                    <dd>{value}</dd>
                  </div>
                ))}
              </dl>
              {log.stream_stop && (
                <p class="error" data-field="stream-stop">
                  {log.stream_stop.guardrails.length
                    ? `Stream stopped by ${log.stream_stop.guardrails.join(", ")}`
                    : "Stream stopped: a redaction reached text already sent"}{" "}
                  after {log.stream_stop.released_chars} characters had been sent ({log.stream_stop.mode} mode).
                </p>
              )}
              {log.provider_filters && (
                <p class={log.provider_filters.filtered ? "error" : "muted"} data-field="provider-filters">
                  {filterSummary(log.provider_filters)}
                </p>
              )}
              <h2>Guardrails</h2>
              <div class="overview" data-overview>
                <div class="stat passed">
                  <strong data-field="checks-passed">{overview.checks_passed}</strong> checks passed
                </div>
                <div class="stat failed">
                  <strong data-field="checks-failed">{overview.checks_failed}</strong> checks failed
                </div>
                <div class="stat errored">
                  <strong data-field="checks-errored">{overview.checks_errored}</strong> checks errored
                </div>
                <div class="stat">
                  <strong>{overview.guardrails_passed}</strong> / {overview.guardrails_passed + overview.guardrails_failed}{" "}
                  guardrails passed
                </div>
              </div>
              {log.guardrail_results.length === 0 && <p class="muted">No guardrail ran on this request.</p>}
              {failedFirst(log.guardrail_results).map((view, index) => (
                <GuardrailCard key={index} view={view} configId={log.config_id} />
              ))}
              <h2>Feedback on the answer</h2>
              {log.feedback.length === 0 ? (
                <p class="muted" data-field="no-answer-feedback">
                  No feedback was sent on this answer (POST /v1/feedback with its request id).
                </p>
              ) : (
                <div class="table-wrap">
                  <table class="answer-feedback">
                    <thead>
                      <tr>
                        <th>Value</th>
                        <th>Weight</th>
                        <th>Metadata</th>
                        <th>Sent</th>
                      </tr>
                    </thead>
                    <tbody>
                      {log.feedback.map((f) => (
                        <tr key={f.id} data-feedback-id={f.id}>
                          <td data-field="answer-feedback-value" class={f.value < 0 ? "failed" : f.value > 0 ? "passed" : ""}>
                            {f.value}
                          </td>
                          <td data-field="answer-feedback-weight">{f.weight}</td>
                          <td>
                            {Object.entries(f.metadata).map(([name, value]) => (
                              <span class="tag" key={name}>
                                {name}: {value}
                              </span>
                            ))}
                          </td>
                          <td>{when(f.updated_at)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
              {log.error && (
                <>
                  <h2>Error</h2>
                  <Json value={log.error} />
                </>
              )}
              {log.attempts.length > 0 && <Attempts attempts={log.attempts} />}
              {log.request !== undefined && (
                <>
                  <h2>Request body</h2>
                  <Json value={log.request} />
                </>
              )}
              {log.response !== undefined && (
                <>
                  <h2>Response body</h2>
                  <Json value={log.response} />
                </>
              )}
            </>
          );
        }}
      </Await>
    </section>
  );
}
