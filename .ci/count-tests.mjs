// Prints "N passed, N failed" from vitest's JSON report. A test file that failed to load has no
// failed test of its own, so it counts as one failure.
import { readFileSync } from "node:fs";

const report = JSON.parse(readFileSync(process.argv[2], "utf8"));
const brokenFiles = report.testResults.filter(
  (file) => file.status === "failed" && !file.assertionResults.some((test) => test.status === "failed"),
).length;
console.log(`${report.numPassedTests} passed, ${report.numFailedTests + brokenFiles} failed`);
