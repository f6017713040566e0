/**
 * The README's gateway examples, and the stream examples of docs/streaming.md they link to, run as
 * pasted against `examples/gateway.yaml`: every curl command and SDK example, with only the port
 * changed.
 */
import { execFile } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../server/lifecycle/serve.js";

const run = promisify(execFile);
const root = path.join(import.meta.dirname, "../..");
let server: RunningServer;
type Block = { lang: string; code: string };
let blocks: Block[];
let streamBlocks: Block[];

/** The fenced blocks of one `## ` section of a Markdown file, pointed at the test server. */
async function sectionBlocks(file: string, heading: string): Promise<Block[]> {
  const text = await readFile(path.join(root, file), "utf8");
  const start = text.indexOf(`## ${heading}`);
  if (start === -1) throw new Error(`${file} has no section "${heading}"`);
  const end = text.indexOf("\n## ", start + 1);
  const section = text.slice(start, end === -1 ? undefined : end);
  const address = new URL(server.url).host;
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({
    lang: m[1] as string,
    code: (m[2] as string).replaceAll("127.0.0.1:8787", address),
  }));
}

beforeAll(async () => {
  server = await startServer({
    port: 0,
    host: "127.0.0.1",
    configPath: path.join(root, "examples/gateway.yaml"),
    logLevel: "error",
  });
  blocks = await sectionBlocks("README.md", "Running the gateway");
  streamBlocks = await sectionBlocks("docs/streaming.md", "`hook_results` in a stream");
});

afterAll(() => server.stop());

const curlsOf = (list: Block[]) => list.filter((b) => b.lang === "sh" && b.code.includes("curl "));
const curls = () => curlsOf(blocks);

async function shell(code: string): Promise<string> {
  const { stdout } = await run("sh", ["-c", code], { timeout: 20_000 });
  return stdout;
}

describe("README: Running the gateway", () => {
  it("has the curl examples this test expects", () => {
    expect(curls()).toHaveLength(3);
    expect(curlsOf(streamBlocks)).toHaveLength(1);
  });

  it("the first curl passes with the mock's answer and hook_results", async () => {
    const body = JSON.parse(await shell(curls()[0]?.code ?? ""));
    expect(body.choices[0].message.content).toBe("You said: Where is my order?");
    expect(body.hook_results.before_request_hooks[0]).toMatchObject({ id: "no-ssn", verdict: true });
  });

  it("the second curl is denied with hooks_failed", async () => {
    const body = JSON.parse(await shell(curls()[1]?.code ?? ""));
    expect(body.error.type).toBe("hooks_failed");
    expect(body.hook_results.before_request_hooks[0]).toMatchObject({ id: "no-ssn", verdict: false, deny: true });
  });

  it("the streaming curl carries hook_results first and last", async () => {
    const events = (await shell(curlsOf(streamBlocks)[0]?.code ?? "")).split("\n\n").filter(Boolean);
    expect(events[0]).toContain('"before_request_hooks"');
    expect(events.at(-2)).toContain('"after_request_hooks"');
    expect(events.at(-1)?.trim()).toBe("data: [DONE]");
  });

  it("the hook backend curl evaluates the saved config", async () => {
    const body = JSON.parse(await shell(curls()[2]?.code ?? ""));
    expect(body).toMatchObject({ status: 446, verdict: false });
  });

  it("has the SDK examples this test expects", () => {
    expect(blocks.filter((b) => b.lang === "js")).toHaveLength(2);
    expect(streamBlocks.filter((b) => b.lang === "js")).toHaveLength(1);
  });

  it("the SDK example prints what its comment says", async () => {
    const example = blocks.find((b) => b.lang === "js");
    const dir = path.join(root, "node_modules/.cache/guardgate-readme");
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, `example-${process.pid}.mjs`);
    try {
      await writeFile(file, example?.code ?? "");
      const { stdout } = await run(process.execPath, [file], { timeout: 20_000 });
      const expected = /\/\/ (.*)\s*$/.exec(example?.code ?? "")?.[1];
      expect(stdout.trim()).toBe(expected);
    } finally {
      await rm(file, { force: true });
    }
  });

  it.each([
    ["the 446 example reads the denying guardrails from both SDKs' thrown errors", () => blocks, 1, 2],
    ["the streaming example reads both hook_results events from both SDKs", () => streamBlocks, 0, 4],
  ])("%s", async (_name, list, index, lines) => {
    const example = list().filter((b) => b.lang === "js")[index];
    const dir = path.join(root, "node_modules/.cache/guardgate-readme");
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, `example-${index}-${process.pid}.mjs`);
    try {
      await writeFile(file, example?.code ?? "");
      const { stdout } = await run(process.execPath, [file], { timeout: 20_000 });
      // The comment lines that end the block say what it prints.
      const codeLines = (example?.code ?? "").trimEnd().split("\n");
      const firstTrailing = codeLines.findLastIndex((line) => !line.startsWith("// ")) + 1;
      const expected = codeLines.slice(firstTrailing).map((line) => line.slice(3));
      expect(expected).toHaveLength(lines);
      expect(stdout.trim().split("\n")).toEqual(expected);
    } finally {
      await rm(file, { force: true });
    }
  });
});
