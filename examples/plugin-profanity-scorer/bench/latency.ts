// The check's latency as the engine runs it, on texts of 1, 10 and 100 KB, clean and with
// profanity: `npm run bench` (`npm run bench -- --quick` for a short smoke run).
import { measureCheck } from "guardgate/testing";
import plugin from "../src/index.js";
import score from "../src/score.js";

const quick = process.argv.includes("--quick");
const clean = "The quick brown fox jumps over the lazy dog, then writes a short report about it. ";
const rude = "The quick brown fox jumps over the damn dog, then writes a sh1tty report about it. ";
const rows = [];
for (const [kind, sentence] of [
  ["clean", clean],
  ["profane", rude],
] as const) {
  for (const kb of [1, 10, 100]) {
    const text = sentence.repeat(Math.ceil((kb * 1024) / sentence.length)).slice(0, kb * 1024);
    const latency = await measureCheck(score, { plugin, text }, quick ? { samples: 10, time: 0, warmup: 2 } : {});
    rows.push({ text: `${kb} KB ${kind}`, samples: latency.samples, "median µs": latency.median_us, "p99 µs": latency.p99_us });
  }
}
console.table(rows);
