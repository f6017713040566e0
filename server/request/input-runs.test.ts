import { describe, expect, it } from "vitest";
import type { Evaluation, GuardrailResult } from "../../core/index.js";
import { InputRuns } from "./target.js";

const evaluation = (status: number) => ({ status }) as unknown as Evaluation;
const result = (id: string) => ({ id }) as unknown as GuardrailResult;

describe("InputRuns", () => {
  it("runs each key's evaluation once, the first key and later ones alike", async () => {
    const inputs = new InputRuns();
    const ran: string[] = [];
    const run = (key: string, status: number) => () => {
      ran.push(key);
      return Promise.resolve(evaluation(status));
    };
    expect(await inputs.sync("a", run("a", 200))).toEqual({ status: 200 });
    expect(await inputs.sync("a", run("a", 446))).toEqual({ status: 200 });
    expect(await inputs.sync("b", run("b", 446))).toEqual({ status: 446 });
    expect(await inputs.sync("b", run("b", 200))).toEqual({ status: 446 });
    expect(await inputs.sync("a", run("a", 446))).toEqual({ status: 200 });
    expect(ran).toEqual(["a", "b"]);
  });

  it("starts each list's asynchronous guardrails once and gives their results in the order started", async () => {
    const inputs = new InputRuns();
    expect(await inputs.asyncResults()).toEqual([]);
    let started = 0;
    const run = (ids: string[]) => () => {
      started++;
      return Promise.resolve(ids.map(result));
    };
    inputs.async("a", run(["a1", "a2"]));
    expect(await inputs.asyncResults()).toEqual([{ id: "a1" }, { id: "a2" }]);
    inputs.async("a", run(["again"]));
    inputs.async("b", run(["b1"]));
    inputs.async("b", run(["again"]));
    inputs.async("c", run(["c1"]));
    expect(await inputs.asyncResults()).toEqual([{ id: "a1" }, { id: "a2" }, { id: "b1" }, { id: "c1" }]);
    expect(started).toBe(3);
  });
});
