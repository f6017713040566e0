/**
 * Memory a pool task shares with the worker running it: whether the task has started, a cancel
 * flag, and the deadline of every check that is running. A worker blocked by a check that never
 * yields cannot answer messages, so the main thread reads this memory instead of asking.
 *
 * Layout: three Int32 (state, cancel flag, thread id of the worker running the task; the flag is
 * what Atomics.waitAsync watches) padded to 16 bytes, then one BigInt64 per check slot holding its deadline in whole milliseconds since the pool's epoch
 * (`performance.timeOrigin + performance.now()` agrees across threads), 0 when it is not running.
 * 64 bits, because a server outlives the 24 days an Int32 of milliseconds would last.
 */
import type { CheckWatch } from "../phase/task.js";

const STATE = 0;
const CANCEL = 1;
const THREAD = 2;
const HEADER_INTS = 3;
const HEADER_BYTES = 16;

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
  return new SharedArrayBuffer(HEADER_BYTES + BigInt64Array.BYTES_PER_ELEMENT * slots);
}

/** The views over a task's memory. */
export interface TaskMemory {
  flags: Int32Array;
  deadlines: BigInt64Array;
}

/** Views a task's memory. */
export function viewTaskMemory(memory: SharedArrayBuffer): TaskMemory {
  return { flags: new Int32Array(memory, 0, HEADER_INTS), deadlines: new BigInt64Array(memory, HEADER_BYTES) };
}

/** The task's state (TaskState). */
export function taskState({ flags }: TaskMemory): number {
  return Atomics.load(flags, STATE);
}

/** Marks the task as started by the worker thread `threadId` (worker side). */
export function markRunning({ flags }: TaskMemory, threadId: number): void {
  Atomics.store(flags, THREAD, threadId);
  Atomics.store(flags, STATE, TaskState.running);
}

/**
 * Makes the task queued again, its checks not running, before it runs once more on another
 * worker (the cancel flag stays): deadlines left by a worker that died must not stop the next.
 */
export function resetTaskMemory({ flags, deadlines }: TaskMemory): void {
  deadlines.fill(0n);
  Atomics.store(flags, THREAD, 0);
  Atomics.store(flags, STATE, TaskState.queued);
}

/** The thread id of the worker that started the task (0 before it started). */
export function runningThread({ flags }: TaskMemory): number {
  return Atomics.load(flags, THREAD);
}

/** Marks the task as done and wakes the cancel watcher so it lets go (worker side). */
export function markDone({ flags }: TaskMemory): void {
  Atomics.store(flags, STATE, TaskState.done);
  Atomics.notify(flags, CANCEL);
}

/** Asks the worker to cancel the task (main side). */
export function requestCancel({ flags }: TaskMemory): void {
  Atomics.store(flags, CANCEL, 1);
  Atomics.notify(flags, CANCEL);
}

/** Whether the main thread asked to cancel the task. */
export function cancelRequested({ flags }: TaskMemory): boolean {
  return Atomics.load(flags, CANCEL) === 1;
}

/**
 * Calls `onCancel` when the main thread cancels the task, without polling: `Atomics.waitAsync`
 * resolves when the flag is notified (by a cancel, or by markDone at the end of the task).
 */
export function watchCancel(memory: TaskMemory, onCancel: () => void): void {
  const wait = waitAsync(memory.flags, CANCEL, 0);
  if (!wait.async) {
    if (cancelRequested(memory)) onCancel();
    return;
  }
  wait.value.then(() => {
    if (cancelRequested(memory)) onCancel();
  });
}

/** The watch a worker hands to the runner: publishes each running check's deadline. */
export function workerWatch({ deadlines }: TaskMemory, epoch: number): CheckWatch {
  return {
    started(slot, limitMs) {
      Atomics.store(deadlines, slot, BigInt(Math.max(1, Math.ceil(sinceEpoch(epoch) + limitMs))));
    },
    finished(slot) {
      Atomics.store(deadlines, slot, 0n);
    },
  };
}

/** Slots of the running checks whose deadline is at or before `time`. */
export function overdueSlots({ deadlines }: TaskMemory, time: number): number[] {
  const slots: number[] = [];
  for (let i = 0; i < deadlines.length; i++) {
    const deadline = Number(Atomics.load(deadlines, i));
    if (deadline !== 0 && deadline <= time) slots.push(i);
  }
  return slots;
}

/** The earliest deadline among the running checks, or Infinity when none runs. */
export function earliestDeadline({ deadlines }: TaskMemory): number {
  let earliest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < deadlines.length; i++) {
    const deadline = Number(Atomics.load(deadlines, i));
    if (deadline !== 0 && deadline < earliest) earliest = deadline;
  }
  return earliest;
}
