/**
 * `guardgate/testing`: helpers for plugin authors. `testCheck` runs a check through a real engine
 * and returns its CheckResult as the gateway reports it; `runExamples` runs a check's examples
 * and compares each with the verdict it states; `measureCheck` measures its latency.
 */
export type { CheckTestInput } from "./check-run.js";
export { type ExampleOptions, type ExampleRun, runExamples } from "./examples.js";
export { type CheckLatency, measureCheck, type MeasureOptions } from "./measure-check.js";
export { type CheckEvaluation, evaluateCheck, testCheck } from "./test-check.js";
