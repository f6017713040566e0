/**
 * The dripped-event rows of `bench:stalls`: one 16 MB event dripped by an upstream in ~4 KB
 * reads (bench/drip-upstream.ts, on a thread of its own), relayed by the gateway on a pass-through
 * stream and on a stream held for an output guardrail, while /health is probed. A decoder that
 * joined the pending event on every read (quadratic) held the event loop for seconds here.
 */
import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { watchHealth } from "./health-watch.js";
import { SseSplitter } from "../server/formats/sse.js";
import { EventStreamSplitter } from "../server/providers/kinds/bedrock/stream.js";

/** Bytes of the dripped event's content, and of each write of the upstream. */
export const DRIPPED_BYTES = 16_000_000;
export const DRIP_READ_BYTES = 4096;

/** One measured stream. */
export interface DrippedRow {
  stream: string;
  runs: number;
  streamMs: number;
  probes: number;
  worstHealthMs: number;
  worstLoopDelayMs: number;
}

const STREAMS: Record<string, Record<string, unknown>> = {
  "pass-through": {},
  "held (window, deny)": {
    output_guardrails: [{ deny: true, stream_mode: "window", regexMatch: { rule: "forbidden", not: true } }],
  },
};

/** Streams the dripped event through the gateway at `base` for each kind of stream, probing /health meanwhile. */
export async function drippedEventRows(
  base: string,
  key: string,
  repeats: number,
  health: () => Promise<number>,
  step: (label: string) => void,
): Promise<DrippedRow[]> {
  const worker = new Worker(new URL("./drip-upstream.js", import.meta.url), {
    workerData: { bytes: DRIPPED_BYTES, readBytes: DRIP_READ_BYTES },
  });
  const [{ port }] = (await once(worker, "message")) as [{ port: number }];
  const rows: DrippedRow[] = [];
  try {
    for (const [name, config] of Object.entries(STREAMS)) {
      const row: DrippedRow = { stream: name, runs: repeats, streamMs: 0, probes: 0, worstHealthMs: 0, worstLoopDelayMs: 0 };
      for (let r = 0; r < repeats; r++) {
        step(`16 MB dripped, ${name}, run ${r + 1}`);
        const started = performance.now();
        await watchHealth(row, health, async () => {
          const response = await fetch(`${base}/v1/chat/completions`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "x-gateway-api-key": key,
              "x-gateway-config": JSON.stringify({ provider: "openai", custom_host: `http://127.0.0.1:${port}/v1`, ...config }),
            },
            body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] }),
          });
          let received = 0;
          for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) received += chunk.byteLength;
          if (response.status !== 200 || received < DRIPPED_BYTES) {
            throw new Error(`the ${name} stream answered ${response.status} with ${received} bytes`);
          }
        });
        row.streamMs = Math.max(row.streamMs, performance.now() - started);
      }
      rows.push(row);
    }
  } finally {
    await worker.terminate();
  }
  return rows;
}

/** The rows as a markdown table. */
export function drippedEventTable(rows: DrippedRow[]): string {
  return [
    `| one ${DRIPPED_BYTES / 1e6} MB event dripped in ${DRIP_READ_BYTES / 1024} KB reads | stream, slowest run (ms) | /health probes | slowest /health (ms) | longest event-loop delay (ms) |`,
    "| --- | ---: | ---: | ---: | ---: |",
    ...rows.map(
      (r) =>
        `| ${r.stream} | ${r.streamMs.toFixed(0)} | ${r.probes} | ${r.worstHealthMs.toFixed(1)} | ${r.worstLoopDelayMs.toFixed(1)} |`,
    ),
  ].join("\n");
}

/** One decoder's cost per byte for one event size. */
export interface DecoderRow {
  decoder: string;
  eventBytes: number;
  nsPerByte: number;
  copiedPerByte: number;
  /** CPU time of the longest single read (push), ms: what one read can hold the event loop for. */
  longestReadCpuMs: number;
}

/**
 * The stream decoders alone, in-process: one event of 1 KB to 16 MB in 4 KB reads, the time per
 * byte (it stays flat when the work is linear) and the bytes copied per byte received.
 */
export function decoderRows(): DecoderRow[] {
  const rows: DecoderRow[] = [];
  for (const size of [1024, 64 * 1024, 1 << 20, 16_000_000]) {
    const sse = Buffer.from(`data: {"t":"${"a".repeat(size)}"}\n\n`);
    const framed = Buffer.alloc(size + 16, 0x61);
    framed.writeUInt32BE(framed.length, 0);
    const decoders = {
      "SSE splitter": () => new SseSplitter(),
      "AWS event stream": () => new EventStreamSplitter(),
    };
    for (const [name, make] of Object.entries(decoders)) {
      const bytes = name === "SSE splitter" ? sse : framed;
      // Enough rounds that a small event is timed over about 16 MB too.
      const rounds = Math.max(1, Math.floor(16_000_000 / bytes.length));
      let copied = 0;
      const started = process.hrtime.bigint();
      for (let r = 0; r < rounds; r++) {
        const decoder = make();
        for (let at = 0; at < bytes.length; at += DRIP_READ_BYTES) decoder.push(bytes.subarray(at, at + DRIP_READ_BYTES));
        copied += decoder.work.copied;
      }
      const ns = Number(process.hrtime.bigint() - started);
      // Once more, read by read, for the CPU time of the longest read (timed apart: getrusage costs).
      let longest = 0;
      const decoder = make();
      for (let at = 0; at < bytes.length; at += DRIP_READ_BYTES) {
        const before = process.cpuUsage();
        decoder.push(bytes.subarray(at, at + DRIP_READ_BYTES));
        const used = process.cpuUsage(before);
        longest = Math.max(longest, (used.user + used.system) / 1000);
      }
      rows.push({
        decoder: name,
        eventBytes: bytes.length,
        nsPerByte: ns / (rounds * bytes.length),
        copiedPerByte: copied / (rounds * bytes.length),
        longestReadCpuMs: longest,
      });
    }
  }
  return rows;
}

/** The decoder rows as a markdown table. */
export function decoderTable(rows: DecoderRow[]): string {
  return [
    `| decoder, one event in ${DRIP_READ_BYTES / 1024} KB reads | event bytes | ns per byte | bytes copied per byte | longest read, CPU (ms) |`,
    "| --- | ---: | ---: | ---: | ---: |",
    ...rows.map(
      (r) =>
        `| ${r.decoder} | ${r.eventBytes} | ${r.nsPerByte.toFixed(2)} | ${r.copiedPerByte.toFixed(2)} | ${r.longestReadCpuMs.toFixed(1)} |`,
    ),
  ].join("\n");
}
