/**
 * A share of the thread used by several workers at once (an evaluation's rows in flight) gives the
 * event loop one turn per slice, not one per worker: workers that find the slice used up while a
 * turn is pending wait for that same turn, and the slice restarts once, when it comes.
 */
import { describe, expect, it } from "vitest";
import { ThreadShare } from "./thread-share.js";

describe("ThreadShare", () => {
  it("hands every worker the turn already pending, so a turn is one slice for all of them", async () => {
    const share = new ThreadShare(-1);
    const first = share.due();
    expect(first).toBeInstanceOf(Promise);
    expect(share.due()).toBe(first);
    expect(share.due()).toBe(first);
    expect(share.turns).toBe(1);
    await first;
    const second = share.due();
    expect(second).not.toBe(first);
    expect(share.turns).toBe(2);
    await second;
  });

  it("lets a ping in between every round of steps of concurrent workers", async () => {
    const share = new ThreadShare(-1);
    const trace: string[] = [];
    let running = true;
    const ping = () => {
      if (!running) return;
      trace.push("ping");
      setImmediate(ping);
    };
    setImmediate(ping);
    const worker = async (name: string) => {
      for (let step = 0; step < 5; step++) {
        trace.push(name);
        await share.due();
      }
    };
    await Promise.all(["a", "b", "c"].map(worker));
    running = false;
    // Between two pings, each worker takes at most one step.
    const rounds = trace
      .join(" ")
      .split("ping")
      .map((round) => round.trim().split(" ").filter(Boolean));
    for (const round of rounds) expect(new Set(round).size).toBe(round.length);
    expect(share.turns).toBe(5);
  });
});
