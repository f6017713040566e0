/**
 * How long one request's megabyte can hold the others: a gateway (`startServer`, as `guardgate
 * serve` runs it, mock provider) streams a megabyte of one character, of punctuation, of spaces, of
 * digits and of prose to a client that reports no usage, so the gateway relays it and counts its
 * tokens; meanwhile a prober asks /health every 2 ms. Reports the slowest /health answer and the
 * event loop's longest delay (perf_hooks) per text; then the same while one 16 MB event is dripped
 * in 4 KB reads through a pass-through and a held stream (bench/dripped-event.ts); then the quality
 * loop's long work on 20,000 logs (stalls-quality.ts). Writes bench/results/stalls.json and
 * stalls.md. `--quick` runs each once, and the quality work on 2,000 logs (a smoke run, not a
 * measurement); `--dripped` runs only the dripped event.
 */
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startServer } from "../server/lifecycle/serve.js";
import { decoderRows, decoderTable, drippedEventRows, drippedEventTable, type DrippedRow } from "./dripped-event.js";
import { watchHealth } from "./health-watch.js";
import { Progress } from "./progress.js";
import { qualityStalls, qualityStallsTable } from "./stalls-quality.js";

const KEY = "gk-bench-stalls-0123456789";
const MB = 1 << 20;
const TEXTS: Record<string, string> = {
  "one letter": "a".repeat(MB),
  "one punctuation mark": ".".repeat(MB),
  spaces: " ".repeat(MB),
  digits: "7".repeat(MB),
  prose: "The gateway counts tokens in slices, and the other requests get their turns. ".repeat(MB / 78),
};

interface Row {
  text: string;
  runs: number;
  streamMs: number;
  probes: number;
  worstHealthMs: number;
  worstLoopDelayMs: number;
}

async function main(): Promise<void> {
  const quick = process.argv.includes("--quick");
  const repeats = quick ? 1 : 5;
  const drippedOnly = process.argv.includes("--dripped");
  const server = await startServer({
    port: 0,
    host: "127.0.0.1",
    logLevel: "warn",
    app: { file: { api_keys: [{ key: KEY }] } },
  });
  const base = server.url;
  const stream = (text: string): Promise<Response> =>
    fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gateway-api-key": KEY },
      body: JSON.stringify({ model: "@mock/m", stream: true, messages: [{ role: "user", content: "hi" }], mock_response: text }),
    });
  const health = async (): Promise<number> => {
    const started = performance.now();
    await (await fetch(`${base}/health`)).text();
    return performance.now() - started;
  };
  const rows: Row[] = [];
  let dripped: DrippedRow[] | undefined;
  const texts = drippedOnly ? {} : TEXTS;
  const progress = new Progress((Object.keys(texts).length + 2) * repeats);
  try {
    for (let i = 0; i < 3; i++) await health();
    await (await stream("warm up")).text();
    for (const [name, text] of Object.entries(texts)) {
      const row: Row = { text: name, runs: repeats, streamMs: 0, probes: 0, worstHealthMs: 0, worstLoopDelayMs: 0 };
      for (let r = 0; r < repeats; r++) {
        progress.step(`${name}, run ${r + 1}`);
        const started = performance.now();
        await watchHealth(row, health, async () => {
          const response = await stream(text);
          for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) void chunk;
          // The count runs when the stream ended; the record is written after it.
          await server.app.guardgate.drainLogs();
        });
        row.streamMs = Math.max(row.streamMs, performance.now() - started);
      }
      rows.push(row);
    }
    dripped = await drippedEventRows(base, KEY, repeats, health, (label) => progress.step(label));
  } finally {
    await server.stop();
  }
  progress.finish("measured");
  const quality = drippedOnly
    ? []
    : await qualityStalls({ logs: quick ? 2000 : 20_000, step: (work) => console.error(`quality: ${work}`) });
  const decoders = decoderRows();
  const cpus = os.cpus();
  const report = {
    machine: { cpus: cpus.length, model: cpus[0]?.model.trim() ?? "unknown", node: process.version, load: os.loadavg() },
    quick,
    rows,
    dripped,
    decoders,
    quality,
  };
  const out = path.resolve("bench/results");
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, "stalls.json"), `${JSON.stringify(report, null, 2)}\n`);
  const table = [
    "| text (1 MB, streamed, counted) | stream and count, slowest run (ms) | /health probes | slowest /health (ms) | longest event-loop delay (ms) |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...rows.map(
      (r) =>
        `| ${r.text} | ${r.streamMs.toFixed(0)} | ${r.probes} | ${r.worstHealthMs.toFixed(1)} | ${r.worstLoopDelayMs.toFixed(1)} |`,
    ),
  ].join("\n");
  const md = `# Stalls\n\n${cpus.length} × ${report.machine.model}, Node ${process.version}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(
      " / ",
    )} while measured.\n\n${table}\n\n${drippedEventTable(dripped ?? [])}\n\n${decoderTable(decoders)}\n\n${qualityStallsTable(quality)}\n`;
  await writeFile(path.join(out, "stalls.md"), md);
  console.log(`${table}\n\n${drippedEventTable(dripped ?? [])}\n\n${decoderTable(decoders)}\n\n${qualityStallsTable(quality)}`);
}

await main();
