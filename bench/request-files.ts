/**
 * `npm run bench:request-files`: which `server/` files run while the gateway serves one streamed
 * chat request with an output guardrail, measured rather than traced by hand. After warm-up
 * requests, V8's precise coverage is reset, one request is sent, and every `dist/server/` file
 * with a function that ran is counted (the caller's own code, leaves included). Of those, the
 * files on the request's path are told from the leaves by a rule read from the source
 * (bench/request-path.ts): a file that ran and imports at run time another that ran. Writes both
 * lists to bench/results/request-files.json and bench/results/request-files.md.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import { Session } from "node:inspector/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "../server/lifecycle/serve.js";
import { splitPath } from "./request-path.js";

const KEY = "gk-bench-request-files-0000";

/** An OpenAI-format upstream answering every request with a short stream. */
function streamingUpstream(): http.Server {
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({
      id: "c1",
      object: "chat.completion.chunk",
      created: 1,
      model: "m",
      choices: [{ index: 0, delta, finish_reason: finish }],
    })}\n\n`;
  return http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(chunk({ role: "assistant", content: "" }, null));
      for (const word of ["Hello", " there,", " friend"]) res.write(chunk({ content: word }, null));
      res.write(chunk({}, "stop"));
      res.end("data: [DONE]\n\n");
    });
  });
}

const upstream = streamingUpstream();
await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
const dir = await mkdtemp(path.join(os.tmpdir(), "guardgate-request-files-"));
const configPath = path.join(dir, "gateway.yaml");
await writeFile(
  configPath,
  [
    "api_keys:",
    `  - key: ${KEY}`,
    "providers:",
    "  - slug: up",
    "    provider: openai",
    "    api_key: sk-bench",
    `    base_url: http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
    "guardrails:",
    "  - id: brief",
    "    side: output",
    "    async: false",
    "    deny: true",
    "    checks:",
    "      - id: default.wordCount",
    "        parameters: { maxWords: 50 }",
    "configs:",
    "  - id: bench",
    "    config:",
    '      provider: "@up"',
    "      output_guardrails: [brief]",
    "",
  ].join("\n"),
  { mode: 0o600 },
);
const server = await startServer({ port: 0, host: "127.0.0.1", configPath, logLevel: "error" });

async function oneRequest(): Promise<void> {
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gateway-api-key": KEY, "x-gateway-config": "bench" },
    body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "Say hello" }] }),
  });
  const text = await response.text();
  if (response.status !== 200 || !text.includes("friend")) throw new Error(`unexpected answer ${response.status}: ${text}`);
}

// Warm-up first, so that one-time work (module loading, routing cached per config) is not counted.
for (let i = 0; i < 5; i++) await oneRequest();
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
await settle();
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
await session.post("Profiler.takePreciseCoverage");
await oneRequest();
await settle(); // the record is written after the stream's end
const { result } = await session.post("Profiler.takePreciseCoverage");
session.disconnect();
await server.stop();
upstream.close();
await rm(dir, { recursive: true, force: true });

const files = result
  .filter((script) => script.url.includes("/dist/server/"))
  .filter((script) => script.functions.some((fn) => fn.ranges.some((range) => range.count > 0)))
  .map((script) => script.url.replace(/^.*\/dist\//, "").replace(/\.js$/, ".ts"))
  .sort();
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { path: onPath, leaves } = splitPath(root, files);

/** Files per folder (or per file directly in server/). */
function byFolder(list: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const file of list) {
    const folder = file.split("/").length > 2 ? `${file.split("/").slice(0, 2).join("/")}/` : file;
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  return counts;
}

const out = path.join(root, "bench/results");
await mkdir(out, { recursive: true });
const date = new Date().toISOString().slice(0, 10);
await writeFile(
  path.join(out, "request-files.json"),
  `${JSON.stringify(
    {
      date,
      node: process.version,
      count: files.length,
      pathCount: onPath.length,
      byFolder: Object.fromEntries(byFolder(files)),
      files,
      path: onPath,
      leaves,
    },
    null,
    2,
  )}\n`,
);
const ranByFolder = byFolder(files);
const pathByFolder = byFolder(onPath);
const table = [
  `One streamed chat request with an output guardrail (${date}, Node ${process.version}): ${files.length} server/ files ran, ${onPath.length} of them on the request's path.`,
  "",
  "A file is on the path when its code ran and it imports, at run time, another server/ file whose code ran",
  "(bench/request-path.ts); the others are leaves the path calls.",
  "",
  "| folder or file | ran | on the path |",
  "|---|---:|---:|",
  ...[...ranByFolder].map(([folder, count]) => `| \`${folder}\` | ${count} | ${pathByFolder.get(folder) ?? 0} |`),
  "",
  `On the path (${onPath.length}):`,
  "",
  ...onPath.map((file) => `- \`${file}\``),
  "",
  `Leaves (${leaves.length}):`,
  "",
  ...leaves.map((file) => `- \`${file}\``),
  "",
].join("\n");
await writeFile(path.join(out, "request-files.md"), table);
process.stdout.write(table);
