/** The gateway benchmark's stage attribution: a CPU profile's samples charged to the stages of the request path. */
import type { Profiler } from "node:inspector";
import { describe, expect, it } from "vitest";
import { STAGES, stageCpuPerRequest, stageMicros, stageOfFile } from "../bench/stage-profile.js";

const DIST = "file:///srv/guardgate/dist/";

describe("stageOfFile", () => {
  it("names the stage of each part of the request path by its compiled file", () => {
    const cases: Array<[string, string | undefined]> = [
      ["server/routes/inference.js", "intake"],
      ["server/request/open.js", "intake"],
      ["server/request/hook-open.js", "intake"],
      ["server/gateway-headers.js", "intake"],
      ["server/auth.js", "intake"],
      ["server/auth-throttle.js", "intake"],
      ["server/app.js", "intake"],
      ["server/formats/openai.js", "intake"],
      ["server/schema.js", "intake"],
      ["server/routing/build.js", "routing"],
      ["server/policies/attach.js", "routing"],
      ["server/request-gate.js", "enforce"],
      ["server/limits/enforcer.js", "enforce"],
      ["server/management/store-gate.js", "enforce"],
      ["server/request/phases.js", "enforce"],
      ["server/request/target.js", "enforce"],
      ["core/phase/run-phase.js", "enforce"],
      ["plugins/default/regexMatch.js", "enforce"],
      ["server/providers/send.js", "call"],
      ["server/upstream/client.js", "call"],
      ["server/request/target-call.js", "call"],
      ["server/request/output.js", "call"],
      ["server/request/stream-enforcer.js", "relay"],
      ["server/request/text-hold.js", "relay"],
      ["server/logs/record.js", "record"],
      ["server/store/sqlite.js", "record"],
      ["server/management/gateway-sources.js", "record"],
      ["server/request/pipeline.js", "gateway other"],
      ["server/management/configs.js", "gateway other"],
      ["server/errors.js", "gateway other"],
      ["bench/gateway-servers.js", undefined],
      ["cli/index.js", undefined],
      ["server/node_modules/x/index.js", undefined],
    ];
    expect(cases.map(([file]) => [file, stageOfFile(file)])).toEqual(cases);
  });
});

/** A profile in V8's shape: a call tree, the node sampled at each tick and the µs before each tick. */
function profile(
  tree: Array<{ id: number; url: string; name?: string; children?: number[] }>,
  samples: number[],
): Profiler.Profile {
  return {
    nodes: tree.map(({ id, url, name, children }) => ({
      id,
      callFrame: { functionName: name ?? "f", scriptId: "0", url, lineNumber: 0, columnNumber: 0 },
      children,
    })),
    startTime: 0,
    endTime: samples.length * 100,
    samples,
    timeDeltas: samples.map(() => 100),
  };
}

describe("stageMicros", () => {
  // (root) ─┬─ fastify ── routes/inference ─┬─ JSON.parse (node)
  //         │                               └─ undici ── upstream/client ── node:net
  //         │                                   └─ core/phase/run-phase ── node_modules/re2 ── plugins/regexMatch
  //         ├─ (garbage collector)
  //         ├─ (idle)
  //         └─ node:net
  const tree = [
    { id: 1, url: "", name: "(root)", children: [2, 9, 10, 11] },
    { id: 2, url: "file:///srv/guardgate/node_modules/fastify/lib/route.js", children: [3] },
    { id: 3, url: `${DIST}server/routes/inference.js`, children: [4, 5, 7] },
    { id: 4, url: "", name: "parse" },
    { id: 5, url: "file:///srv/guardgate/node_modules/undici/lib/pool.js", children: [6] },
    { id: 6, url: `${DIST}server/upstream/client.js`, children: [12] },
    { id: 12, url: "node:net" },
    { id: 7, url: `${DIST}core/phase/run-phase.js`, children: [8] },
    { id: 8, url: "file:///srv/guardgate/node_modules/re2/re2.js", children: [13] },
    { id: 13, url: `${DIST}plugins/default/regexMatch.js` },
    { id: 9, url: "", name: "(garbage collector)" },
    { id: 10, url: "", name: "(idle)" },
    { id: 11, url: "node:net" },
  ];

  it("charges each sample to the nearest guardgate frame above it, and the rest to the framework", () => {
    // Each sample's time is the delta before the next one: the last sample carries none.
    const micros = stageMicros(profile(tree, [4, 4, 12, 8, 13, 9, 11, 10, 10, 3, 2]), DIST);
    expect(micros).toEqual({
      intake: 300, // two JSON.parse samples and one in the route itself
      routing: 0,
      enforce: 200, // node_modules code under core/phase/run-phase, and the plugin frame itself
      call: 100, // node:net under the upstream client, through undici
      relay: 0,
      record: 0,
      "gateway other": 0,
      framework: 200, // garbage collection and a socket event with no guardgate frame
    });
  });

  it("recognises guardgate's frames only under the given dist folder", () => {
    const micros = stageMicros(profile(tree, [3, 3]), "file:///elsewhere/dist/");
    expect(micros.intake).toBe(0);
    expect(micros.framework).toBe(100);
  });

  it("divides a measured CPU per request by the stages' shares of the profiled time", () => {
    const micros = Object.fromEntries(STAGES.map((stage) => [stage, 0])) as Record<(typeof STAGES)[number], number>;
    micros.intake = 300;
    micros.enforce = 100;
    const perRequest = stageCpuPerRequest(micros, 800);
    expect(perRequest.intake).toBe(600);
    expect(perRequest.enforce).toBe(200);
    expect(perRequest.framework).toBe(0);
    expect(Object.values(stageCpuPerRequest({ ...micros, intake: 0, enforce: 0 }, 800)).every((n) => n === 0)).toBe(true);
  });
});
