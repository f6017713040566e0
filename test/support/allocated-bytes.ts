/**
 * Bytes the JavaScript heap allocated while a function ran, for tests that hold a path to fewer
 * allocations: its growth plus what each collection during the run freed (v8's GCProfiler).
 */
import v8 from "node:v8";

/** Bytes the heap allocated while `run` ran. */
export function allocatedBytes(run: () => void): number {
  const profiler = new v8.GCProfiler();
  const before = v8.getHeapStatistics().used_heap_size;
  profiler.start();
  run();
  const { statistics } = profiler.stop();
  let bytes = v8.getHeapStatistics().used_heap_size - before;
  for (const entry of statistics) bytes += entry.beforeGC.heapStatistics.usedHeapSize - entry.afterGC.heapStatistics.usedHeapSize;
  return bytes;
}
