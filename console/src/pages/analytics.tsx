/**
 * Guardrail analytics from `GET /admin/v1/analytics/guardrails`: pass/fail over time per guardrail
 * and per check (the range asked in equal buckets, one call each), and each check's latency
 * percentiles, drawn as plain SVG. Each chart is drawn at its frame's width in CSS pixels (never
 * scaled by a viewBox), so its text keeps the page's size on a phone and on a wide screen alike.
 */
import type { ComponentChildren } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
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

async function load(span: number): Promise<{ total: Aggregate; buckets: Bucket[]; end: number }> {
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
  return { total, buckets: parts.map((aggregate, i) => ({ from: edges[i]!, aggregate })), end };
}

/** A moment with its date, short: the range may span days, so a time alone would not place it. */
function stamp(at: string | number): string {
  return new Date(at).toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

/** A chart's frame: measures its own width and draws `children(width)` once it is known. */
function ChartFrame({ children, caption }: { children: (width: number) => ComponentChildren; caption: ComponentChildren }) {
  const frame = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const element = frame.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setWidth(Math.floor(element.clientWidth)));
    observer.observe(element);
    setWidth(Math.floor(element.clientWidth));
    return () => observer.disconnect();
  }, []);
  return (
    <figure class="chart">
      <div ref={frame} class="chart-frame">
        {width > 0 && children(width)}
      </div>
      <figcaption>{caption}</figcaption>
    </figure>
  );
}

/** Passed and failed runs per bucket as stacked bars. */
function PassFailChart({
  points,
  label,
  end,
}: {
  points: Array<{ at: string; passed: number; failed: number }>;
  label: string;
  end: number;
}) {
  return (
    <ChartFrame
      caption={
        <>
          {label} <span class="legend pass">passed</span> <span class="legend fail">failed</span>
        </>
      }
    >
      {(width) => <PassFailBars points={points} label={label} end={end} width={width} />}
    </ChartFrame>
  );
}

function PassFailBars({
  points,
  label,
  end,
  width,
}: {
  points: Array<{ at: string; passed: number; failed: number }>;
  label: string;
  end: number;
  width: number;
}) {
  const height = 180;
  const pad = 28;
  const most = Math.max(1, ...points.map((p) => p.passed + p.failed));
  const slot = (width - pad) / points.length;
  const scale = (n: number) => (n / most) * (height - pad);
  return (
    <svg
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={`${label}: passed and failed runs over time`}
    >
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
            <rect x={x} width={slot - 4} y={height - pad - passedHeight - failedHeight} height={failedHeight} class="bar-fail" />
          </g>
        );
      })}
      <text x={pad} y={height - 8} class="axis-label" data-axis="from">
        {stamp(points[0]?.at ?? end)}
      </text>
      <text x={width} y={height - 8} class="axis-label end" data-axis="to">
        {stamp(end)}
      </text>
    </svg>
  );
}

/** Latency percentiles of each check as grouped horizontal bars. */
function LatencyChart({ checks }: { checks: Aggregate["checks"] }) {
  return (
    <ChartFrame
      caption={
        <>
          Latency per check <span class="legend p50">p50</span> <span class="legend p90">p90</span>{" "}
          <span class="legend p99">p99</span>
        </>
      }
    >
      {(width) => <LatencyBars checks={checks} width={width} />}
    </ChartFrame>
  );
}

function LatencyBars({ checks, width }: { checks: Aggregate["checks"]; width: number }) {
  const keys: Array<keyof Latency> = ["p50", "p90", "p99"];
  const most = Math.max(0.001, ...checks.flatMap((c) => keys.map((k) => c.latency_ms[k])));
  const bar = 14;
  // On a narrow frame the check's id sits above its bars; on a wide one, beside them.
  const stacked = width < 480;
  const left = stacked ? 0 : 180;
  const top = stacked ? 18 : 0;
  const row = top + 3 * bar + 12;
  const height = Math.max(row, checks.length * row);
  return (
    <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label="Latency percentiles per check">
      {checks.map((check, i) => (
        <g key={check.check_id}>
          <text x={0} y={i * row + 13} class="axis-label">
            {check.check_id}
          </text>
          {keys.map((k, j) => {
            const w = (check.latency_ms[k] / most) * (width - left - 100);
            const y = i * row + top + j * bar;
            return (
              <g key={k}>
                <rect x={left} y={y} width={Math.max(1, w)} height={bar - 2} class={`bar-${k}`} />
                <text x={left + w + 4} y={y + 10} class="axis-label">
                  {`${k} ${ms(check.latency_ms[k])}`}
                </text>
              </g>
            );
          })}
        </g>
      ))}
    </svg>
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
        {({ total, buckets, end }) => {
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
              <PassFailChart points={points} label={(chosen ?? "").replace(":", " ")} end={end} />
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
