/**
 * The README's gateway examples, run as pasted against `examples/gateway.yaml`: every curl command
 * and the SDK example, with only the port changed.
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
let blocks: Array<{ lang: string; code: string }>;

beforeAll(async () => {
  server = await startServer({
    port: 0,
    host: "127.0.0.1",
    configPath: path.join(root, "examples/gateway.yaml"),
    logLevel: "error",
  });
  const readme = await readFile(path.join(root, "README.md"), "utf8");
  const start = readme.indexOf("## Running the gateway");
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const address = new URL(server.url).host;
  blocks = [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({
    lang: m[1] as string,
    code: (m[2] as string).replaceAll("127.0.0.1:8787", address),
  }));
});

afterAll(() => server.stop());

const curls = () => blocks.filter((b) => b.lang === "sh" && b.code.includes("curl "));

async function shell(code: string): Promise<string> {
  const { stdout } = await run("sh", ["-c", code], { timeout: 20_000 });
  return stdout;
}

describe("README: Running the gateway", () => {
  it("has the curl examples this test expects", () => {
    expect(curls()).toHaveLength(4);
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
    const events = (await shell(curls()[2]?.code ?? "")).split("\n\n").filter(Boolean);
    expect(events[0]).toContain('"before_request_hooks"');
    expect(events.at(-2)).toContain('"after_request_hooks"');
    expect(events.at(-1)?.trim()).toBe("data: [DONE]");
  });

  it("the hook backend curl evaluates the saved config", async () => {
    const body = JSON.parse(await shell(curls()[3]?.code ?? ""));
    expect(body).toMatchObject({ status: 446, verdict: false });
  });

  it("has the SDK examples this test expects", () => {
    expect(blocks.filter((b) => b.lang === "js")).toHaveLength(3);
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
    ["the 446 example reads the denying guardrails from both SDKs' thrown errors", 1, 2],
    ["the streaming example reads both hook_results events from both SDKs", 2, 4],
  ])("%s", async (_name, index, lines) => {
    const example = blocks.filter((b) => b.lang === "js")[index];
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
