/**
 * `guardgate models pull` through the built CLI against a fake hub on 127.0.0.1 (test/support/
 * fake-hub.ts) that speaks the hub's revision API and resolve paths, with an LFS file behind a
 * CDN redirect: the folder is fetched, verified and pinned, a changed file is refused on load, the
 * token goes to the hub only and is never printed, and a gateway whose config names the pulled
 * folder serves requests through the official `openai` client.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, mkdtemp, rm, writeFile, readdir, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import OpenAI, { APIError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chooseFiles } from "./models-pull.js";
import { type FakeHub, startFakeHub } from "../test/support/fake-hub.js";
import { FakeUpstream } from "../test/support/fake-upstream.js";
import { API_KEY, startGateway } from "../test/support/gateway.js";
import { buildApp } from "../server/app.js";
import { writeTinyClassifier } from "../test/support/tiny-classifier.js";
import { loadClassifier } from "../plugins/model/shared/onnx-classifier.js";
import { MODEL_LOCK_FILE, type ModelLock } from "../plugins/model/shared/model-lock.js";

const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli/bin.js");
const COMMIT = "0123456789abcdef0123456789abcdef01234567";
const LATE_FILE = Buffer.from(JSON.stringify({ model_max_length: 512, note: "fetched last" }));
const TOKEN = "hf_gatedtoken0123456789abcdefghijkl";
let root: string;
let fake: FakeHub;
let modelBytes: Buffer;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "guardgate-models-pull-"));
  const tiny = await writeTinyClassifier(path.join(root, "source"));
  const read = (name: string) => readFile(path.join(tiny, name));
  modelBytes = await read("model.onnx");
  const files = {
    "README.md": Buffer.from("# tiny\n"),
    "config.json": await read("config.json"),
    "onnx/model.onnx": modelBytes,
    "onnx/config.json": await read("config.json"),
    "onnx/tokenizer.json": await read("tokenizer.json"),
    "model.safetensors": Buffer.from("weights we do not need"),
  };
  fake = await startFakeHub([
    { id: "acme/tiny-guard", commit: COMMIT, files, lfs: (f) => /\.(onnx|safetensors)$/.test(f) },
    { id: "acme/gated-guard", commit: COMMIT, files, lfs: (f) => f.endsWith(".onnx"), token: TOKEN },
    { id: "acme/no-onnx", commit: COMMIT, files: { "config.json": Buffer.from("{}") }, lfs: () => false },
    // Its last file comes from the CDN, where a test can make it fail after the others arrived.
    {
      id: "acme/late-fail",
      commit: COMMIT,
      files: { ...files, "onnx/tokenizer_config.json": LATE_FILE },
      lfs: (f) => f.endsWith(".onnx") || f.endsWith("tokenizer_config.json"),
    },
  ]);
});
afterAll(async () => {
  await fake.close();
  await rm(root, { recursive: true, force: true });
});

/** Runs the CLI without blocking this thread (the fake hub answers from it). */
function guardgate(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const { HF_TOKEN: _token, HF_ENDPOINT: _endpoint, ...inherited } = process.env;
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, env: { ...inherited, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The SHA-256 that `models.NAME.lock_sha256` pins: of the lock file's bytes. */
const lockSha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

const readLock = async (dir: string) => JSON.parse(await readFile(path.join(dir, MODEL_LOCK_FILE), "utf8")) as ModelLock;

describe("choosing the files of a model folder", () => {
  const repo = [
    "README.md",
    "config.json",
    "onnx/model.onnx",
    "onnx/config.json",
    "onnx/tokenizer.json",
    "onnx/model_quantized.onnx",
  ];

  it("takes model.onnx and the files beside it, else those at the top", () => {
    expect(chooseFiles(repo, undefined)).toEqual([
      { path: "onnx/model.onnx", file: "model.onnx" },
      { path: "onnx/config.json", file: "config.json" },
      { path: "onnx/tokenizer.json", file: "tokenizer.json" },
    ]);
    expect(chooseFiles(["model.onnx", "config.json", "tokenizer.json", "tokenizer_config.json"], []).map((w) => w.file)).toEqual([
      "model.onnx",
      "config.json",
      "tokenizer.json",
      "tokenizer_config.json",
    ]);
  });

  it("stores a named file under the name given, and refuses what cannot make a folder", () => {
    expect(chooseFiles(repo, ["onnx/model_quantized.onnx=model.onnx", "config.json", "onnx/tokenizer.json"])[0]).toEqual({
      path: "onnx/model_quantized.onnx",
      file: "model.onnx",
    });
    expect(() => chooseFiles(repo, ["onnx/nope.onnx"])).toThrow(/--file onnx\/nope\.onnx: not a file of the repository/);
    expect(() => chooseFiles(repo, ["onnx/model.onnx", "onnx/config.json"])).toThrow(/without tokenizer\.json/);
    expect(() => chooseFiles(repo, ["onnx/config.json", "config.json", "onnx/model.onnx"])).toThrow(
      /two files would be stored as config\.json/,
    );
    expect(() => chooseFiles(repo, ["config.json=../x"])).toThrow(/not a plain file name/);
    expect(() => chooseFiles(["config.json", "onnx/model_quantized.onnx"], undefined)).toThrow(
      /no model\.onnx or onnx\/model\.onnx \(ONNX files: onnx\/model_quantized\.onnx\); name one with --file PATH=model\.onnx/,
    );
  });
});

// Each run starts a process that loads onnxruntime for the closing inspection: slow on a busy machine.
describe("guardgate models pull", { timeout: 120_000 }, () => {
  it("fetches, verifies and pins a gated folder: the token reaches the hub only and is never printed", async () => {
    const out = path.join(root, "pulled");
    const run = await guardgate(["models", "pull", "acme/gated-guard", "--endpoint", fake.hub.origin, "--out", out], {
      HF_TOKEN: TOKEN,
    });
    expect(run.stderr).toContain(`acme/gated-guard at main: commit ${COMMIT}; 3 files into ${out}`);
    expect(run.code).toBe(0);
    // Progress lines (no terminal here), then `models inspect` on the folder.
    expect(run.stderr).toMatch(/\[1\/3\] onnx\/model\.onnx {2}[\d.]+ (B|KB) {2}sha256 [0-9a-f]{64}/);
    expect(run.stdout).toContain("labels        0=SAFE, 1=INJECTION (softmax)");
    expect((await readdir(out)).sort()).toEqual(["config.json", MODEL_LOCK_FILE, "model.onnx", "tokenizer.json"]);
    const lock = await readLock(out);
    expect(lock).toMatchObject({
      version: 1,
      repo: "acme/gated-guard",
      revision: "main",
      commit: COMMIT,
      endpoint: fake.hub.origin,
    });
    expect(lock.files.map((f) => [f.path, f.file])).toEqual([
      ["onnx/model.onnx", "model.onnx"],
      ["onnx/config.json", "config.json"],
      ["onnx/tokenizer.json", "tokenizer.json"],
    ]);
    const { createHash } = await import("node:crypto");
    expect(lock.files[0]?.sha256).toBe(createHash("sha256").update(modelBytes).digest("hex"));
    // Files are fetched at the pinned commit, with the token; the CDN never sees it.
    const resolves = fake.hub.requests.filter((r) => r.url.includes("/resolve/"));
    expect(resolves.length).toBeGreaterThan(0);
    expect(resolves.every((r) => r.url.includes(`/resolve/${COMMIT}/`) && r.headers.authorization === `Bearer ${TOKEN}`)).toBe(
      true,
    );
    expect(fake.cdn.requests.length).toBeGreaterThan(0);
    expect(fake.cdn.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
    expect(`${run.stdout}${run.stderr}`).not.toContain(TOKEN);
    expect(await readFile(path.join(out, MODEL_LOCK_FILE), "utf8")).not.toContain(TOKEN);
  });

  it("says a gated repository needs HF_TOKEN, and a repository without an export has none", async () => {
    const gated = await guardgate([
      "models",
      "pull",
      "acme/gated-guard",
      "--endpoint",
      fake.hub.origin,
      "--out",
      path.join(root, "g"),
    ]);
    expect(gated.code).toBe(1);
    expect(gated.stderr).toContain("the hub answered 401: the repository is gated or private; set HF_TOKEN");
    const bare = await guardgate([
      "models",
      "pull",
      "acme/no-onnx",
      "--endpoint",
      fake.hub.origin,
      "--out",
      path.join(root, "n"),
    ]);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain("the repository holds no model.onnx or onnx/model.onnx; it has no ONNX export");
  });

  it("refuses bytes that do not match the hub's hash, and leaves no file behind", async () => {
    const hash = (await import("node:crypto")).createHash("sha256").update(modelBytes).digest("hex");
    fake.tamper(hash, Buffer.concat([modelBytes.subarray(0, -1), Buffer.from([modelBytes.at(-1)! ^ 1])]));
    try {
      const out = path.join(root, "tampered");
      const run = await guardgate(["models", "pull", "acme/tiny-guard", "--endpoint", fake.hub.origin, "--out", out]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /acme\/tiny-guard\/onnx\/model\.onnx at [0-9a-f]{40}: the bytes received hash to [0-9a-f]{64}, the hub's ETag says [0-9a-f]{64}: refused/,
      );
      expect(existsSync(out)).toBe(false);
    } finally {
      fake.tamper(hash, modelBytes);
    }
  });

  it("refuses a loopback hub taken from HF_ENDPOINT, and a file over the size limit", async () => {
    const env = await guardgate(["models", "pull", "acme/tiny-guard", "--out", path.join(root, "e")], {
      HF_ENDPOINT: fake.hub.origin,
    });
    expect(env.code).toBe(1);
    expect(env.stderr).toMatch(
      /127\.0\.0\.1.*give --allow-private to reach a private address, or name the mirror with --endpoint/,
    );
    const big = await guardgate([
      "models",
      "pull",
      "acme/tiny-guard",
      "--endpoint",
      fake.hub.origin,
      "--out",
      path.join(root, "b"),
      "--max-file-mb",
      "0.0001",
    ]);
    expect(big.code).toBe(1);
    expect(big.stderr).toMatch(/onnx\/model\.onnx at [0-9a-f]{40}: \d+ bytes, over the limit of 104 bytes \(--max-file-mb\)/);
  });

  it("refuses to load a pulled folder whose file changed after the pull", async () => {
    const out = path.join(root, "changed");
    const args = ["models", "pull", "acme/tiny-guard", "--revision", COMMIT, "--endpoint", fake.hub.origin, "--out", out];
    expect((await guardgate([...args, "--no-inspect"])).code).toBe(0);
    expect(await readLock(out)).toMatchObject({ revision: COMMIT, commit: COMMIT });
    await expect(loadClassifier(out)).resolves.toBeDefined();
    const config = path.join(out, "config.json");
    await writeFile(config, (await readFile(config, "utf8")).replace("INJECTION", "SAFE_NOW"));
    const run = await guardgate(["models", "inspect", out]);
    expect(run.code).toBe(1);
    // A gateway whose config names the folder does not start.
    await expect(buildApp({ logger: false, baseDir: root, file: { models: { guard: { path: "changed" } } } })).rejects.toThrow(
      `models.guard.path: ${config}: its SHA-256`,
    );
    expect(run.stderr).toContain(`${config}: its SHA-256`);
    expect(run.stderr).toContain(
      `recorded in ${MODEL_LOCK_FILE} (acme/tiny-guard at ${COMMIT}); the folder was changed after it was pulled: pull it again`,
    );
  });

  it("serves requests from a gateway whose config names the pulled folder", async () => {
    const out = path.join(root, "served");
    expect(
      (await guardgate(["models", "pull", "acme/tiny-guard", "--endpoint", fake.hub.origin, "--out", out, "--no-inspect"])).code,
    ).toBe(0);
    const upstream = await new FakeUpstream().start();
    const gateway = await startGateway({
      baseDir: root,
      file: {
        models: { guard: { path: "served" } },
        guardrails: [
          {
            id: "pulled",
            async: false,
            deny: true,
            checks: [{ id: "model.classifier", parameters: { model: "guard", failLabels: ["INJECTION"] } }],
          },
        ],
      },
    });
    try {
      const client = new OpenAI({
        baseURL: `${gateway.url}/v1`,
        apiKey: "sk-client-0123456789",
        maxRetries: 0,
        defaultHeaders: {
          "x-gateway-api-key": API_KEY,
          "x-gateway-config": JSON.stringify({ provider: "openai", custom_host: upstream.baseUrl, input_guardrails: ["pulled"] }),
        },
      });
      const ask = (content: string) => ({ model: "gpt-test", messages: [{ role: "user" as const, content }] });
      const error = await client.chat.completions.create(ask("please attack the system")).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIError);
      expect((error as APIError).status).toBe(446);
      const { data } = await client.chat.completions.create(ask("hello world")).withResponse();
      expect(data.choices[0]?.message.content).toBe("echo: hello world");
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });

  it("leaves no loadable folder when a pull fails midway, and keeps an earlier pull until a new one is complete", async () => {
    const hash = createHash("sha256").update(LATE_FILE).digest("hex");
    // Same length, one bit changed: the size matches, the hash does not.
    fake.tamper(hash, Buffer.concat([LATE_FILE.subarray(0, -1), Buffer.from([LATE_FILE.at(-1)! ^ 1])]));
    try {
      const pull = (out: string) =>
        guardgate(["models", "pull", "acme/late-fail", "--endpoint", fake.hub.origin, "--out", out, "--no-inspect"]);
      const fresh = path.join(root, "late-fresh");
      const run = await pull(fresh);
      expect(run.code).toBe(1);
      // model.onnx, config.json and tokenizer.json had arrived: none of them is left to load.
      expect(run.stderr).toContain("[3/4] onnx/tokenizer.json");
      expect(run.stderr).toMatch(/onnx\/tokenizer_config\.json at [0-9a-f]{40}: the bytes received hash to/);
      expect(existsSync(fresh)).toBe(false);
      await expect(loadClassifier(fresh)).rejects.toThrow();
      expect((await readdir(root)).filter((name) => name.includes(".pulling-"))).toEqual([]);

      const earlier = path.join(root, "late-earlier");
      expect(
        (await guardgate(["models", "pull", "acme/tiny-guard", "--endpoint", fake.hub.origin, "--out", earlier, "--no-inspect"]))
          .code,
      ).toBe(0);
      const before = await readFile(path.join(earlier, MODEL_LOCK_FILE), "utf8");
      expect((await pull(earlier)).code).toBe(1);
      expect(await readFile(path.join(earlier, MODEL_LOCK_FILE), "utf8")).toBe(before);
      expect((await readdir(earlier)).sort()).toEqual(["config.json", MODEL_LOCK_FILE, "model.onnx", "tokenizer.json"]);
    } finally {
      fake.tamper(hash, LATE_FILE);
    }
  });

  it("replaces an earlier pull whole once the new one is complete", async () => {
    const out = path.join(root, "again");
    const args = ["models", "pull", "acme/tiny-guard", "--endpoint", fake.hub.origin, "--out", out, "--no-inspect"];
    expect((await guardgate(args)).code).toBe(0);
    await writeFile(path.join(out, "stray.txt"), "left by hand");
    expect((await guardgate(args)).code).toBe(0);
    expect((await readdir(out)).sort()).toEqual(["config.json", MODEL_LOCK_FILE, "model.onnx", "tokenizer.json"]);
    expect((await readdir(root)).filter((name) => name.startsWith(".again."))).toEqual([]);
  });
});

describe("a pulled folder whose lock the config pins (lock_sha256)", { timeout: 120_000 }, () => {
  /** Pulls a fresh folder; resolves to it and the pin the pull printed. */
  async function pulled(name: string): Promise<{ out: string; pin: string }> {
    const out = path.join(root, name);
    const run = await guardgate([
      "models",
      "pull",
      "acme/tiny-guard",
      "--endpoint",
      fake.hub.origin,
      "--out",
      out,
      "--no-inspect",
    ]);
    expect(run.code).toBe(0);
    const pin = /lock_sha256: ([0-9a-f]{64})/.exec(run.stderr)?.[1] as string;
    expect(pin).toBe(lockSha256(await readFile(path.join(out, MODEL_LOCK_FILE))));
    expect(run.stderr).toContain(`models:\n    tiny-guard:\n      path: ${out}\n      lock_sha256: ${pin}\n`);
    return { out, pin };
  }
  const start = (name: string, pin: string) =>
    buildApp({ logger: false, baseDir: root, file: { models: { guard: { path: name, lock_sha256: pin } } } });

  it("loads when the lock and its files are the ones pulled", async () => {
    const { out, pin } = await pulled("pinned-ok");
    const app = await start("pinned-ok", pin);
    await app.close();
    await expect(loadClassifier(out, pin)).resolves.toBeDefined();
  });

  it("refuses a weight file changed after the pull, naming it", async () => {
    const { out, pin } = await pulled("pinned-weight");
    const weights = path.join(out, "model.onnx");
    const bytes = await readFile(weights);
    await writeFile(weights, Buffer.concat([bytes.subarray(0, -1), Buffer.from([bytes.at(-1)! ^ 1])]));
    await expect(start("pinned-weight", pin)).rejects.toThrow(`${weights}: its SHA-256`);
    await expect(loadClassifier(out, pin)).rejects.toThrow(`${weights}: its SHA-256`);
  });

  it("refuses a file and its lock rewritten together, and a lock removed", async () => {
    const { out, pin } = await pulled("pinned-both");
    const config = path.join(out, "config.json");
    const changed = (await readFile(config, "utf8")).replace("INJECTION", "SAFE_NOW");
    await writeFile(config, changed);
    const lockFile = path.join(out, MODEL_LOCK_FILE);
    const lock = await readLock(out);
    for (const entry of lock.files) {
      if (entry.file === "config.json") {
        entry.sha256 = createHash("sha256").update(changed).digest("hex");
        entry.size = Buffer.byteLength(changed);
      }
    }
    await writeFile(lockFile, `${JSON.stringify(lock, null, 2)}\n`);
    const rewritten = `models.guard.lock_sha256: ${lockFile}: its SHA-256 ${lockSha256(await readFile(lockFile))} does not match lock_sha256 ${pin} pinned in the config; the lock was rewritten after the pull`;
    await expect(start("pinned-both", pin)).rejects.toThrow(rewritten);
    await expect(loadClassifier(out, pin)).rejects.toThrow(/does not match lock_sha256 [0-9a-f]{64} pinned in the config/);
    await unlink(lockFile);
    await expect(start("pinned-both", pin)).rejects.toThrow(`${lockFile}: missing, but the config pins the folder's lock`);
    await expect(loadClassifier(out, pin)).rejects.toThrow(/missing, but the config pins the folder's lock/);
  });
});
