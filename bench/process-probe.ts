/**
 * What the gateway benchmark reads inside each server process, over its IPC channel: the process's
 * CPU time, and the garbage collector's work and the bytes the JavaScript heap allocated over a
 * window (v8's GCProfiler: each collection's time, and the heap's used size before and after it).
 * gateway-servers.ts installs it in the benchmark's own servers; peer-probe.ts preloads it into the
 * peer gateway's process, which is started as its package documents and knows nothing of the bench.
 *
 * Bytes allocated over a window are the heap's growth plus what every collection in it freed; they
 * count the main thread's JavaScript heap only (not buffers' memory outside it, nor worker threads).
 */
import v8 from "node:v8";

/** The garbage collector's work over a window. */
export interface GcWindow {
  /** Collections, and their time in µs, by kind (Scavenge, MarkSweepCompact, ...). */
  collections: number;
  gcMicros: number;
  byType: Record<string, { count: number; micros: number }>;
  /** Bytes the main thread's JavaScript heap allocated in the window. */
  allocatedBytes: number;
}

/** Phases the server's executor ran on its main thread and in its worker pool (the "auto" executor counts them). */
export interface PhaseCounts {
  inline: number;
  pool: number;
}

let profiler: v8.GCProfiler | undefined;
let usedAtStart = 0;

/** Starts a window (one at a time). */
export function gcStart(): void {
  profiler?.stop();
  profiler = new v8.GCProfiler();
  usedAtStart = v8.getHeapStatistics().used_heap_size;
  profiler.start();
}

/** Ends the window and sums it up. */
export function gcStop(): GcWindow {
  const result = profiler?.stop();
  profiler = undefined;
  const usedAtEnd = v8.getHeapStatistics().used_heap_size;
  const window: GcWindow = { collections: 0, gcMicros: 0, byType: {}, allocatedBytes: usedAtEnd - usedAtStart };
  for (const entry of result?.statistics ?? []) {
    window.collections++;
    window.gcMicros += entry.cost;
    const type = (window.byType[entry.gcType] ??= { count: 0, micros: 0 });
    type.count++;
    type.micros += entry.cost;
    window.allocatedBytes += entry.beforeGC.heapStatistics.usedHeapSize - entry.afterGC.heapStatistics.usedHeapSize;
  }
  return window;
}

/** Answers the benchmark's "cpu", "gc-start" and "gc-stop" messages. */
export function installProbe(): void {
  process.on("message", (message) => {
    if (message === "cpu") {
      const { user, system } = process.cpuUsage();
      process.send?.({ cpuMicros: user + system });
    } else if (message === "gc-start") {
      gcStart();
      process.send?.({ gcStarted: true });
    } else if (message === "gc-stop") {
      process.send?.({ gc: gcStop() });
    }
  });
}
