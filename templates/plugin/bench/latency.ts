// The check's latency as the engine runs it, on texts of 1, 10 and 100 KB: `npm run bench`
// (`npm run bench -- --quick` for a short smoke run). Medians and p99 in microseconds.
import { measureCheck } from "guardgate/testing";
import plugin from "../src/index.js";
import maxLinks from "../src/maxLinks.js";

const quick = process.argv.includes("--quick");
const sentence = "The quick brown fox reads https://docs.example.com/guide and writes a short report about it. ";
const rows = [];
for (const kb of [1, 10, 100]) {
  const text = sentence.repeat(Math.ceil((kb * 1024) / sentence.length)).slice(0, kb * 1024);
  const latency = await measureCheck(
    maxLinks,
    { plugin, text, parameters: { max: 1000, allowDomains: ["example.org"] } },
    quick ? { samples: 10, time: 0, warmup: 2 } : {},
  );
  rows.push({ text: `${kb} KB`, samples: latency.samples, "median µs": latency.median_us, "p99 µs": latency.p99_us });
}
console.table(rows);
