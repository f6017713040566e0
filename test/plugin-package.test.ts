/**
 * A plugin package, end to end: the profanity example (made with `guardgate plugin new`) is
 * installed and tested in a copy, packed with `npm pack`, and the tarball installed into a new
 * gateway folder next to guardgate. The gateway folder then loads it by package name — in the
 * gateway started by its installed `guardgate serve`, through `guardgate check`, and through the
 * library, inline and in the worker pool — and a profane request fails.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine } from "../index.js";
import { installBesideCheckout, npm } from "./support/npm.js";
import { START_LIMIT_MS } from "./support/serve-process.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const example = path.join(root, "examples", "plugin-profanity-scorer");
const work = mkdtempSync(path.join(tmpdir(), "guardgate-plugin-package-"));
const pluginDir = path.join(work, "plugin");
const gatewayDir = path.join(work, "gateway");
const PACKAGE = "guardgate-plugin-profanity";

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs the gateway folder's installed `guardgate` command. */
async function installedGuardgate(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(path.join(gatewayDir, "node_modules", ".bin", "guardgate"), args, {
      cwd: gatewayDir,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Starts the gateway folder's `guardgate serve`; resolves with its address once it printed it. */
async function serve(config: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(path.join(gatewayDir, "node_modules", ".bin", "guardgate"), ["serve", "--port", "0", "--config", config], {
    cwd: gatewayDir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d) => (output += String(d)));
  child.stderr?.on("data", (d) => (output += String(d)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no address printed:\n${output}`));
    }, START_LIMIT_MS);
    child.stdout?.on("data", () => {
      const match = /guardgate listening on (http:\/\/[^\s:]+:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
    child.once("exit", () => {
      clearTimeout(timer);
      reject(new Error(`exited early:\n${output}`));
    });
  });
  return { child, url };
}

describe("the profanity plugin as a package", () => {
  let tarball = "";

  beforeAll(async () => {
    // A copy of the example whose guardgate dependency points at this checkout.
    cpSync(example, pluginDir, {
      recursive: true,
      filter: (source) => !/[\\/](node_modules|dist)$|\.tgz$|package-lock\.json$/.test(source),
    });
    const manifestPath = path.join(pluginDir, "package.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    manifest.devDependencies.guardgate = `file:${root}`;
    manifest.allowScripts = { [`file:${root}`]: false };
    writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
    await installBesideCheckout(pluginDir);
  }, 300_000);

  it("passes its own tests", { timeout: 120_000 }, async () => {
    const tested = await npm(["test"], pluginDir);
    expect(tested.stdout).toMatch(/# fail 0\n/);
    expect(tested.stdout).not.toMatch(/# pass 0\n/);
  });

  it("packs into a tarball holding the built plugin and no tests", { timeout: 120_000 }, async () => {
    const packed = JSON.parse((await npm(["pack", "--json"], pluginDir)).stdout) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    const files = packed[0]?.files.map((f) => f.path) ?? [];
    expect(files).toContain("dist/src/index.js");
    expect(files).toContain("dist/src/score.js");
    expect(files.some((f) => f.includes("test"))).toBe(false);
    tarball = path.join(pluginDir, packed[0]?.filename ?? "");
    expect(path.basename(tarball)).toBe(`${PACKAGE}-0.1.0.tgz`);
  });

  it("installs from the tarball into a gateway folder beside guardgate", { timeout: 300_000 }, async () => {
    mkdirSync(gatewayDir);
    writeFileSync(
      path.join(gatewayDir, "package.json"),
      JSON.stringify({
        name: "my-gateway",
        private: true,
        dependencies: { guardgate: `file:${root}`, [PACKAGE]: `file:${tarball}` },
        allowScripts: { [`file:${root}`]: false },
      }),
    );
    await installBesideCheckout(gatewayDir);
    const installed = JSON.parse(readFileSync(path.join(gatewayDir, "node_modules", PACKAGE, "package.json"), "utf8"));
    expect(installed.peerDependencies).toEqual({ guardgate: "^0.1.0" });
  });

  it("is listed by the gateway folder's guardgate with its check, sides and parameters", async () => {
    const run = await installedGuardgate(["plugins", "list", "--plugin", PACKAGE]);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain(`profanity (custom, apiVersion 1) from "${PACKAGE}"`);
    expect(run.stdout).toContain("profanity.score  sides: input, output; deterministic, transforms; time limit 2000 ms");
    expect(run.stdout).toMatch(/threshold\s+number, default 2/);
  });

  it("fails a profane request through the installed guardgate command: 446 with deny", async () => {
    writeFileSync(
      path.join(gatewayDir, "polite.json"),
      JSON.stringify({ input_guardrails: [{ id: "polite", deny: true, "profanity.score": { threshold: 2 } }] }),
    );
    const args = ["check", "--plugin", PACKAGE, "--guardrail", "polite.json", "--text"];
    const fails = await installedGuardgate([...args, "This answer is bullsh1t."]);
    expect(fails.code).toBe(1);
    const evaluation = JSON.parse(fails.stdout);
    expect(evaluation.status).toBe(446);
    expect(evaluation.results[0].checks[0]).toMatchObject({ id: "profanity.score", verdict: false, data: { score: 2 } });

    const passes = await installedGuardgate([...args, "This answer is helpful."]);
    expect(passes.code).toBe(0);
    expect(JSON.parse(passes.stdout).status).toBe(200);
  });

  it(
    "runs in the gateway started with the package in its config file: 446 for a profane request",
    { timeout: 60_000 },
    async () => {
      writeFileSync(
        path.join(gatewayDir, "gateway.yaml"),
        [
          `plugins: ["${PACKAGE}"]`,
          "api_keys:",
          "  - key: gk-plugin-test-0123456789",
          "providers:",
          "  - slug: demo",
          "    provider: mock",
          "",
        ].join("\n"),
      );
      const { child, url } = await serve("gateway.yaml");
      try {
        const ask = (content: string) =>
          fetch(`${url}/v1/chat/completions`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "x-gateway-api-key": "gk-plugin-test-0123456789",
              "x-gateway-config": JSON.stringify({
                input_guardrails: [{ id: "polite", deny: true, "profanity.score": {} }],
              }),
            },
            body: JSON.stringify({ model: "@demo/any", messages: [{ role: "user", content }] }),
          });
        const refused = await ask("Answer this sh*t now.");
        expect(refused.status).toBe(446);
        const body = (await refused.json()) as { hook_results: { before_request_hooks: Array<{ checks: unknown[] }> } };
        expect(body.hook_results.before_request_hooks[0]?.checks[0]).toMatchObject({
          id: "profanity.score",
          verdict: false,
          data: { score: 2 },
        });
        expect((await ask("Answer this question now.")).status).toBe(200);
      } finally {
        child.kill("SIGTERM");
        await once(child, "exit");
      }
    },
  );

  it("stops the gateway's start when a configured plugin throws while it loads", async () => {
    cpSync(path.join(root, "test", "fixtures", "plugins", "throws-on-load.mjs"), path.join(gatewayDir, "throws-on-load.mjs"));
    writeFileSync(path.join(gatewayDir, "hostile.yaml"), `plugins: ["${PACKAGE}", "./throws-on-load.mjs"]\n`);
    const run = await installedGuardgate(["serve", "--port", "0", "--config", "hostile.yaml"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/plugin "\.\/throws-on-load\.mjs" failed to load: this plugin refuses to load/);
    expect(run.stdout).toBe("");
  });

  it.each(["inline", "pool"] as const)(
    "loads by package name in the library (%s executor): 246 without deny, and masks",
    async (executor) => {
      // In the pool each worker imports the package itself, from the module the main thread resolved.
      const engine = await createEngine({ plugins: [PACKAGE], baseDir: gatewayDir, executor });
      try {
        expect(engine.plugins().find((p) => p.id === "profanity")?.source).toBe(`"${PACKAGE}"`);
        const evaluation = await engine.evaluate({
          side: "output",
          requestType: "chatComplete",
          request: { messages: [{ role: "user", content: "How did it go?" }] },
          response: { choices: [{ index: 0, message: { role: "assistant", content: "F*ck, it was a sh1tshow." } }] },
          config: { output_guardrails: [{ id: "clean-replies", "profanity.score": { redact: true } }] },
        });
        expect(evaluation.status).toBe(246);
        expect(evaluation.transformed).toBe(true);
        expect(evaluation.response).toEqual({
          choices: [{ index: 0, message: { role: "assistant", content: "F***, it was a sh1tshow." } }],
        });
      } finally {
        await engine.close();
      }
    },
  );
});
