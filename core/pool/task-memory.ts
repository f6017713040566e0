/**
 * Memory a pool task shares with the worker running it: whether the task has started, a cancel
 * flag, and the deadline of every check that is running. A worker blocked by a check that never
 * yields cannot answer messages, so the main thread reads this memory instead of asking.
 *
 * Times are whole milliseconds since the pool's epoch (`performance.timeOrigin + performance.now()`
 * agrees across threads), so they fit an Int32Array and are read and written with Atomics.
 */
import type { CheckWatch } from "../runner.js";

const STATE = 0;
const CANCEL = 1;
const SLOTS = 2;

/** `Atomics.waitAsync` (ES2024, in Node since 16), typed here because the project's library is ES2023. */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      view: Int32Array,
      index: number,
      value: number,
    ): { async: false; value: string } | { async: true; value: Promise<string> };
  }
).waitAsync;

/** Where a task is: queued (not picked up by a worker yet), running, or done. */
export const TaskState = { queued: 0, running: 1, done: 2 } as const;

/** Milliseconds since `epoch`, on a clock every thread of the process shares. */
export function sinceEpoch(epoch: number): number {
  return performance.timeOrigin + performance.now() - epoch;
}

/** A task's shared memory for `slots` checks. */
export function createTaskMemory(slots: number): SharedArrayBuffer {
  return new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * (SLOTS + slots));
}

/** The task's state (TaskState). */
export function taskState(view: Int32Array): number {
  return Atomics.load(view, STATE);
}

/** Marks the task as started (worker side). */
export function markRunning(view: Int32Array): void {
  Atomics.store(view, STATE, TaskState.running);
}

/** Marks the task as done and wakes the cancel watcher so it lets go (worker side). */
export function markDone(view: Int32Array): void {
  Atomics.store(view, STATE, TaskState.done);
  Atomics.notify(view, CANCEL);
}

/** Asks the worker to cancel the task (main side). */
export function requestCancel(view: Int32Array): void {
  Atomics.store(view, CANCEL, 1);
  Atomics.notify(view, CANCEL);
}

/** Whether the main thread asked to cancel the task. */
export function cancelRequested(view: Int32Array): boolean {
  return Atomics.load(view, CANCEL) === 1;
}

/**
 * Calls `onCancel` when the main thread cancels the task, without polling: `Atomics.waitAsync`
 * resolves when the flag is notified (by a cancel, or by markDone at the end of the task).
 */
export function watchCancel(view: Int32Array, onCancel: () => void): void {
  const wait = waitAsync(view, CANCEL, 0);
  if (!wait.async) {
    if (cancelRequested(view)) onCancel();
    return;
  }
  wait.value.then(() => {
    if (cancelRequested(view)) onCancel();
  });
}

/** The watch a worker hands to the runner: publishes each running check's deadline. */
export function workerWatch(view: Int32Array, epoch: number): CheckWatch {
  return {
    started(slot, limitMs) {
      Atomics.store(view, SLOTS + slot, Math.max(1, Math.ceil(sinceEpoch(epoch) + limitMs)));
    },
    finished(slot) {
      Atomics.store(view, SLOTS + slot, 0);
    },
  };
}

/** Slots of the running checks whose deadline is at or before `time`. */
export function overdueSlots(view: Int32Array, time: number): number[] {
  const slots: number[] = [];
  for (let i = SLOTS; i < view.length; i++) {
    const deadline = Atomics.load(view, i);
    if (deadline !== 0 && deadline <= time) slots.push(i - SLOTS);
  }
  return slots;
}

/** The earliest deadline among the running checks, or Infinity when none runs. */
export function earliestDeadline(view: Int32Array): number {
  let earliest = Number.POSITIVE_INFINITY;
  for (let i = SLOTS; i < view.length; i++) {
    const deadline = Atomics.load(view, i);
    if (deadline !== 0 && deadline < earliest) earliest = deadline;
  }
  return earliest;
}
