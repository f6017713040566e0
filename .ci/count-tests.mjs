// Prints "N passed, N failed" summed over vitest's JSON reports, one per run. A test file that failed
// to load has no failed test of its own, so it counts as one failure; so does a run whose report is
// missing or unreadable (it never started, or crashed before writing it).
import { existsSync, readFileSync } from "node:fs";

let passed = 0;
let failed = 0;
for (const file of process.argv.slice(2)) {
  let report;
  try {
    report = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined;
  } catch {
    report = undefined;
  }
  if (!report?.testResults) {
    failed += 1;
    continue;
  }
  const brokenFiles = report.testResults.filter(
    (result) => result.status === "failed" && !result.assertionResults.some((test) => test.status === "failed"),
  ).length;
  passed += report.numPassedTests;
  failed += report.numFailedTests + brokenFiles;
}
console.log(`${passed} passed, ${failed} failed`);
