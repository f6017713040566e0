import { describe, expect, it } from "vitest";
import {
  cancelRequested,
  createTaskMemory,
  earliestDeadline,
  markDone,
  markRunning,
  overdueSlots,
  requestCancel,
  runningThread,
  sinceEpoch,
  TaskState,
  taskState,
  viewTaskMemory,
  watchCancel,
  workerWatch,
} from "./task-memory.js";

describe("task memory", () => {
  it("tracks the task's state and the thread running it", () => {
    const view = viewTaskMemory(createTaskMemory(2));
    expect(taskState(view)).toBe(TaskState.queued);
    expect(runningThread(view)).toBe(0);
    markRunning(view, 7);
    expect(taskState(view)).toBe(TaskState.running);
    expect(runningThread(view)).toBe(7);
    markDone(view);
    expect(taskState(view)).toBe(TaskState.done);
  });

  it("publishes running checks' deadlines and finds the overdue ones", () => {
    const epoch = performance.timeOrigin + performance.now() - 1_000;
    const view = viewTaskMemory(createTaskMemory(3));
    const watch = workerWatch(view, epoch);
    expect(earliestDeadline(view)).toBe(Number.POSITIVE_INFINITY);
    watch.started(0, 100);
    watch.started(2, 5_000);
    const now = sinceEpoch(epoch);
    expect(earliestDeadline(view)).toBeGreaterThanOrEqual(now + 99);
    expect(earliestDeadline(view)).toBeLessThanOrEqual(now + 101);
    expect(overdueSlots(view, now)).toEqual([]);
    expect(overdueSlots(view, now + 200)).toEqual([0]);
    expect(overdueSlots(view, now + 10_000)).toEqual([0, 2]);
    watch.finished(0);
    expect(overdueSlots(view, now + 10_000)).toEqual([2]);
    // The header (state, cancel flag, thread) and the deadlines do not overlap.
    markRunning(view, 2 ** 31 - 1);
    expect(overdueSlots(view, now + 10_000)).toEqual([2]);
  });

  it("wakes the cancel watcher on a cancel, and lets it go quietly when the task ends", async () => {
    const cancelled = viewTaskMemory(createTaskMemory(0));
    let calls = 0;
    watchCancel(cancelled, () => calls++);
    requestCancel(cancelled);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(calls).toBe(1);
    expect(cancelRequested(cancelled)).toBe(true);

    const finished = viewTaskMemory(createTaskMemory(0));
    watchCancel(finished, () => calls++);
    markDone(finished);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(calls).toBe(1);
  });

  it("calls the cancel watcher at once when the cancel came first", async () => {
    const view = viewTaskMemory(createTaskMemory(0));
    requestCancel(view);
    let calls = 0;
    watchCancel(view, () => calls++);
    expect(calls).toBe(1);
  });
});
