import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EventClock, eventCounter } from "./client.js";

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("EventClock", () => {
  it("counts only time spent waiting on the upstream since its last complete event", () => {
    const stalls: number[] = [];
    const clock = new EventClock(100, (silent) => stalls.push(silent));
    clock.waiting();
    vi.advanceTimersByTime(60);
    clock.arrived(0);
    // A slow client: the gateway is not waiting on the upstream.
    vi.advanceTimersByTime(500);
    expect(stalls).toEqual([]);
    clock.waiting();
    vi.advanceTimersByTime(30);
    expect(stalls).toEqual([]);
    vi.advanceTimersByTime(10);
    expect(stalls).toHaveLength(1);
    expect(stalls[0]).toBeCloseTo(40, 0);
    clock.stop();
  });

  it("starts afresh at each complete event", () => {
    const stalls: number[] = [];
    const clock = new EventClock(100, (silent) => stalls.push(silent));
    for (let i = 0; i < 10; i++) {
      clock.waiting();
      vi.advanceTimersByTime(90);
      clock.arrived(1);
    }
    expect(stalls).toEqual([]);
    clock.stop();
  });
});

describe("eventCounter", () => {
  it("counts SSE events, and AWS event-stream messages for that content type", () => {
    expect(eventCounter("text/event-stream")(Buffer.from("data: 1\n\ndata: 2\r\rdata: 3"))).toBe(2);
    const message = Buffer.alloc(20);
    message.writeUInt32BE(20, 0);
    const count = eventCounter("application/vnd.amazon.eventstream");
    expect(count(Buffer.concat([message, message.subarray(0, 10)]))).toBe(1);
    expect(count(message.subarray(10))).toBe(1);
  });
});
