/**
 * Which stage of the request path a V8 CPU profile's time was spent in. Each sample's self time is
 * charged to the first frame of guardgate's own code (dist/server, dist/core, dist/plugins) found
 * walking up its stack from the sampled frame; a sample with no such frame above it is the
 * framework's (fastify, undici, Node itself, the garbage collector). Idle time is left out.
 *
 * Why the nearest own frame, not the sampled frame's file: most of a request's CPU is spent in
 * Node, fastify, undici and V8 built-ins (JSON, regular expressions, buffers, sockets) called from
 * guardgate's code. Charged by the sampled frame, that time would all read as "framework" and hide
 * which step asked for it; charged to the outermost own frame, everything would read as the route
 * that started the request. The nearest own frame names the step that made the call, which is the
 * step a change would have to touch to spend less.
 */
import type { Profiler } from "node:inspector";

/** The stages, in the order a request passes through them. */
export const STAGES = ["intake", "routing", "enforce", "call", "relay", "record", "gateway other", "framework"] as const;

export type Stage = (typeof STAGES)[number];

/** Each stage's files, as paths under dist/; the first rule that matches wins. */
const STAGE_FILES: ReadonlyArray<readonly [Stage, RegExp]> = [
  [
    "intake",
    /^server\/(routes\/|request\/(open|hook-open|headers|metadata|request-shape|hook-targets|context)\.js$|formats\/|auth[^/]*\.js$|app\.js$|gateway-headers\.js$|schema\.js$)/,
  ],
  ["routing", /^server\/(routing\/|policies\/)/],
  [
    "enforce",
    /^(core\/|plugins\/|server\/(request\/(phases|input-coverage|stream-coverage|plugin-credentials|target)\.js$|request-gate\.js$|limits\/|management\/store-gate\.js$))/,
  ],
  [
    "call",
    /^server\/(request\/(target-call|retry|response-cache|redis-response-cache|upstream-headers|output|outcome|attempts)\.js$|providers\/|upstream\/)/,
  ],
  ["relay", /^server\/request\/(stream-enforcer|text-hold|relay-types)\.js$/],
  ["record", /^server\/(logs\/|store\/|management\/gateway-sources\.js$)/],
  ["gateway other", /^server\//],
];

/** The stage of a file given by its path under dist/, or undefined when it is not guardgate's own code. */
export function stageOfFile(distPath: string): Stage | undefined {
  if (distPath.includes("node_modules/")) return undefined;
  return STAGE_FILES.find(([, files]) => files.test(distPath))?.[0];
}

/** Microseconds of non-idle profiled time per stage, every stage present. */
export type StageMicros = Record<Stage, number>;

/**
 * Self time per stage of a profile taken in a process whose compiled code lives under `distUrl`
 * (a `file://` URL ending in `/`).
 */
export function stageMicros(profile: Profiler.Profile, distUrl: string): StageMicros {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const stageOfNode = new Map<number, Stage | null>();
  const stageOf = (id: number): Stage | null => {
    const known = stageOfNode.get(id);
    if (known !== undefined) return known;
    const node = nodes.get(id);
    if (!node || node.callFrame.functionName === "(idle)") return null;
    const { url } = node.callFrame;
    const own = url.startsWith(distUrl) ? stageOfFile(url.slice(distUrl.length)) : undefined;
    const parent = parents.get(id);
    const stage = own ?? (parent === undefined ? "framework" : (stageOf(parent) ?? "framework"));
    stageOfNode.set(id, stage);
    return stage;
  };
  const totals = Object.fromEntries(STAGES.map((stage) => [stage, 0])) as StageMicros;
  const { samples = [], timeDeltas = [] } = profile;
  // A sample's time runs until the next sample is taken (DevTools counts it the same way).
  for (const [i, id] of samples.entries()) {
    const stage = stageOf(id);
    if (stage) totals[stage] += timeDeltas[i + 1] ?? 0;
  }
  return totals;
}

/**
 * Each stage's CPU µs per request: its share of the profiled non-idle time times the CPU per
 * request measured for the row without the profiler running.
 */
export function stageCpuPerRequest(micros: StageMicros, cpuMicrosPerRequest: number): StageMicros {
  const busy = STAGES.reduce((sum, stage) => sum + micros[stage], 0);
  return Object.fromEntries(
    STAGES.map((stage) => [stage, busy > 0 ? (micros[stage] / busy) * cpuMicrosPerRequest : 0]),
  ) as StageMicros;
}
