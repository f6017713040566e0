/**
 * Guardrail analytics from `GET /admin/v1/analytics/guardrails`: pass/fail over time per guardrail
 * and per check (the range asked in equal buckets, one call each), and each check's latency
 * percentiles, drawn as plain SVG.
 */
import { useState } from "preact/hooks";
import { admin } from "../api";
import { Await, ms, PageHead, useLoad } from "../ui";

interface Latency {
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}

interface Aggregate {
  from: string;
  to: string;
  guardrails: Array<{ guardrail_id: string; runs: number; passed: number; failed: number; latency_ms: Latency }>;
  checks: Array<{ check_id: string; runs: number; passed: number; failed: number; errored: number; latency_ms: Latency }>;
}

const RANGES: Record<string, number> = { "1 hour": 3600_000, "24 hours": 24 * 3600_000, "7 days": 7 * 24 * 3600_000 };
const BUCKETS = 12;

interface Bucket {
  from: string;
  aggregate: Aggregate;
}

async function load(span: number): Promise<{ total: Aggregate; buckets: Bucket[] }> {
  const end = Date.now();
  const start = end - span;
  const step = span / BUCKETS;
  const edges = Array.from({ length: BUCKETS }, (_, i) => new Date(start + i * step).toISOString());
  const [total, ...parts] = await Promise.all([
    admin<Aggregate>("/analytics/guardrails", { from: new Date(start).toISOString(), to: new Date(end).toISOString() }),
    ...edges.map((from, i) =>
      admin<Aggregate>("/analytics/guardrails", { from, to: new Date(start + (i + 1) * step).toISOString() }),
    ),
  ]);
  return { total, buckets: parts.map((aggregate, i) => ({ from: edges[i]!, aggregate })) };
}

/** Passed and failed runs per bucket as stacked bars. */
function PassFailChart({ points, label }: { points: Array<{ at: string; passed: number; failed: number }>; label: string }) {
  const width = 600;
  const height = 160;
  const pad = 24;
  const most = Math.max(1, ...points.map((p) => p.passed + p.failed));
  const slot = (width - pad) / points.length;
  const scale = (n: number) => (n / most) * (height - pad);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${label}: passed and failed runs over time`}>
        <line x1={pad} y1={height - pad} x2={width} y2={height - pad} class="axis" />
        <text x={0} y={12} class="axis-label">
          {most}
        </text>
        {points.map((p, i) => {
          const x = pad + i * slot + 2;
          const passedHeight = scale(p.passed);
          const failedHeight = scale(p.failed);
          return (
            <g key={i}>
              <title>{`${new Date(p.at).toLocaleString()}: ${p.passed} passed, ${p.failed} failed`}</title>
              <rect x={x} width={slot - 4} y={height - pad - passedHeight} height={passedHeight} class="bar-pass" />
              <rect
                x={x}
                width={slot - 4}
                y={height - pad - passedHeight - failedHeight}
                height={failedHeight}
                class="bar-fail"
              />
            </g>
          );
        })}
        <text x={pad} y={height - 6} class="axis-label">
          {new Date(points[0]?.at ?? Date.now()).toLocaleTimeString()}
        </text>
        <text x={width} y={height - 6} class="axis-label end">
          now
        </text>
      </svg>
      <figcaption>
        {label} <span class="legend pass">passed</span> <span class="legend fail">failed</span>
      </figcaption>
    </figure>
  );
}

/** Latency percentiles of each check as grouped horizontal bars. */
function LatencyChart({ checks }: { checks: Aggregate["checks"] }) {
  const keys: Array<keyof Latency> = ["p50", "p90", "p99"];
  const most = Math.max(0.001, ...checks.flatMap((c) => keys.map((k) => c.latency_ms[k])));
  const row = 3 * 12 + 10;
  const width = 600;
  const left = 180;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${Math.max(row, checks.length * row)}`} role="img" aria-label="Latency percentiles per check">
        {checks.map((check, i) => (
          <g key={check.check_id}>
            <text x={0} y={i * row + 14} class="axis-label">
              {check.check_id}
            </text>
            {keys.map((k, j) => {
              const w = (check.latency_ms[k] / most) * (width - left - 70);
              return (
                <g key={k}>
                  <rect x={left} y={i * row + j * 12} width={Math.max(1, w)} height={10} class={`bar-${k}`} />
                  <text x={left + w + 4} y={i * row + j * 12 + 9} class="axis-label">
                    {`${k} ${ms(check.latency_ms[k])}`}
                  </text>
                </g>
              );
            })}
          </g>
        ))}
      </svg>
      <figcaption>
        Latency per check <span class="legend p50">p50</span> <span class="legend p90">p90</span>{" "}
        <span class="legend p99">p99</span>
      </figcaption>
    </figure>
  );
}

export function Analytics() {
  const [range, setRange] = useState("24 hours");
  const [subject, setSubject] = useState("");
  const loaded = useLoad(() => load(RANGES[range]!), [range]);
  return (
    <section>
      <PageHead title="Guardrail analytics">
        <select name="range" aria-label="Range" value={range} onChange={(e) => setRange((e.target as HTMLSelectElement).value)}>
          {Object.keys(RANGES).map((r) => (
            <option key={r} value={r}>
              last {r}
            </option>
          ))}
        </select>
      </PageHead>
      <Await loaded={loaded}>
        {({ total, buckets }) => {
          const subjects = [
            ...total.guardrails.map((g) => `guardrail:${g.guardrail_id}`),
            ...total.checks.map((c) => `check:${c.check_id}`),
          ];
          const chosen = subjects.includes(subject) ? subject : subjects[0];
          const points = buckets.map(({ from, aggregate }) => {
            const [kind, id] = (chosen ?? ":").split(/:(.*)/s) as [string, string];
            const found =
              kind === "guardrail"
                ? aggregate.guardrails.find((g) => g.guardrail_id === id)
                : aggregate.checks.find((c) => c.check_id === id);
            return { at: from, passed: found?.passed ?? 0, failed: found?.failed ?? 0 };
          });
          if (!subjects.length) return <p class="muted">No guardrail ran in this range.</p>;
          return (
            <>
              <label class="filter">
                <span>Pass/fail of</span>
                <select name="subject" value={chosen} onChange={(e) => setSubject((e.target as HTMLSelectElement).value)}>
                  {subjects.map((s) => (
                    <option key={s} value={s}>
                      {s.replace(":", " ")}
                    </option>
                  ))}
                </select>
              </label>
              <PassFailChart points={points} label={(chosen ?? "").replace(":", " ")} />
              <LatencyChart checks={total.checks} />
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th>Check</th>
                      <th>Runs</th>
                      <th>Passed</th>
                      <th>Failed</th>
                      <th>Errored</th>
                      <th>p50</th>
                      <th>p95</th>
                      <th>p99</th>
                    </tr>
                  </thead>
                  <tbody>
                    {total.checks.map((c) => (
                      <tr key={c.check_id}>
                        <td>{c.check_id}</td>
                        <td>{c.runs}</td>
                        <td>{c.passed}</td>
                        <td>{c.failed}</td>
                        <td>{c.errored}</td>
                        <td>{ms(c.latency_ms.p50)}</td>
                        <td>{ms(c.latency_ms.p95)}</td>
                        <td>{ms(c.latency_ms.p99)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          );
        }}
      </Await>
    </section>
  );
}
