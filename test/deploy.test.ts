/**
 * The deployment files. Docker cannot run here, so the Dockerfile is checked twice: as a linter
 * would (stages, the final image's user and dependencies, pinned bases, apt hygiene), and by
 * running its build stage for real — its COPY list into an empty folder, its RUN lines, then the
 * final stage's files started with its ENTRYPOINT and CMD, asked for /ready, its HEALTHCHECK and a
 * denied request. The compose file's fleet matches the settings the gateway reads.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { parseGatewayFile } from "../server/sources/config-file.js";
import { freePort } from "./support/free-port.js";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

interface Instruction {
  op: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped, by stage. */
function stages(text: string): Instruction[][] {
  const joined = text.replace(/\\\n/g, " ");
  const result: Instruction[][] = [];
  for (const line of joined.split("\n")) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith("#")) continue;
    const [, op = "", args = ""] = /^(\S+)\s*(.*)$/.exec(trimmed) ?? [];
    if (op.toUpperCase() === "FROM") result.push([]);
    result.at(-1)?.push({ op: op.toUpperCase(), args });
  }
  return result;
}

describe("Dockerfile", () => {
  const all = stages(read("Dockerfile"));
  const final = all.at(-1)!;

  it("builds in stages and runs the last one as an unprivileged user", () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
    const users = final.filter((i) => i.op === "USER").map((i) => i.args);
    expect(users.at(-1)).toBeDefined();
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
    // Nothing after the last USER runs as root again.
    expect(final.findIndex((i) => i.op === "USER")).toBeLessThan(final.findIndex((i) => i.op === "ENTRYPOINT"));
  });

  it("gives the final image the dependencies of `npm ci --omit=dev` and no compiler", () => {
    const copied = final.filter((i) => i.op === "COPY" && /--from=(\S+)/.test(i.args));
    const modules = copied.find((i) => /node_modules/.test(i.args));
    const stageName = /--from=(\S+)/.exec(modules?.args ?? "")?.[1];
    const source = all.find((stage) => new RegExp(`\\bAS\\s+${stageName}\\b`, "i").test(stage[0]?.args ?? ""));
    expect(source?.some((i) => i.op === "RUN" && /npm ci\b.*--omit=dev/.test(i.args))).toBe(true);
    expect(final.some((i) => i.op === "RUN" && /apt-get install|npm (ci|install)\b/.test(i.args))).toBe(false);
  });

  it("pins every base image by tag, and installs Debian packages without extras, cleaning the lists", () => {
    const names = all.map((stage) => /\bAS\s+(\S+)/i.exec(stage[0]!.args)?.[1]);
    for (const stage of all) {
      const image = stage[0]!.args.split(/\s+/)[0]!;
      // A stage may start from an earlier one; the others name an image and its tag.
      if (!names.includes(image)) expect(image).toMatch(/:[\w.-]+$/);
      expect(image).not.toMatch(/:latest$/);
      for (const run of stage.filter((i) => i.op === "RUN" && /apt-get install/.test(i.args))) {
        expect(run.args).toMatch(/--no-install-recommends/);
        expect(run.args).toMatch(/-y\b/);
        expect(run.args).toMatch(/rm -rf \/var\/lib\/apt\/lists/);
      }
    }
  });

  it("uses exec form for the command, and checks health on /ready", () => {
    expect(final.find((i) => i.op === "ENTRYPOINT")?.args).toMatch(/^\[/);
    expect(final.find((i) => i.op === "CMD")?.args).toMatch(/^\[/);
    expect(final.find((i) => i.op === "HEALTHCHECK")?.args).toContain("/ready");
  });
});

/** An instruction's JSON (exec form) arguments. */
function execForm(args: string): string[] {
  return JSON.parse(args) as string[];
}

/** Paths the build context leaves out (.dockerignore; plain names and folders, as this one has). */
function ignored(): Set<string> {
  const file = path.join(root, ".dockerignore");
  if (!existsSync(file)) return new Set();
  return new Set(
    readFileSync(file, "utf8")
      .split("\n")
      .map((line) => line.trim().replace(/\/$/, ""))
      .filter((line) => line && !line.startsWith("#")),
  );
}

/** `COPY [--chown=…] SRC… DEST` from the build context: sources and destination. */
function copyArgs(args: string): { sources: string[]; dest: string } {
  const words = args.split(/\s+/).filter((word) => !word.startsWith("--"));
  return { sources: words.slice(0, -1), dest: words.at(-1)! };
}

/** Copies context paths as `COPY` does into `dir` (the stage's WORKDIR); refuses ignored ones. */
function copyFromContext(args: string, dir: string): void {
  const { sources, dest } = copyArgs(args);
  const leftOut = ignored();
  for (const source of sources) {
    if (leftOut.has(source.split("/")[0]!)) throw new Error(`COPY ${source}: left out of the context by .dockerignore`);
    const target = dest.endsWith("/") ? path.join(dir, dest, path.basename(source)) : path.join(dir, dest);
    cpSync(path.join(root, source), target, { recursive: true });
  }
}

/** This environment without npm's variables (they would point npm at this checkout). */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_|^GUARDGATE_/i.test(key)));
  return { ...env, ...extra };
}

function sh(command: string, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      "sh",
      ["-c", command],
      { cwd, env: cleanEnv(), timeout: 900_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`RUN ${command} failed: ${error.message}\n${stdout}\n${stderr}`)) : resolve(),
    );
  });
}

/**
 * The installed dependencies are the lockfile's: every package the lockfile pins is installed at
 * its version. The final stage below links them instead of running the deps stage's `npm ci
 * --omit=dev` and native rebuild again (docs/deploy.md).
 */
function assertInstalledFromLockfile(): void {
  const lock = JSON.parse(read("package-lock.json")) as { packages: Record<string, { version?: string }> };
  const installed = JSON.parse(read("node_modules/.package-lock.json")) as { packages: Record<string, { version?: string }> };
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (!where) continue;
    const held = installed.packages[where];
    // Optional packages of other platforms are in the lockfile but not installed here.
    if (!held && (entry as { optional?: boolean }).optional) continue;
    expect({ where, version: held?.version }).toEqual({ where, version: entry.version });
  }
}

describe("the Dockerfile's build, run", () => {
  const all = stages(read("Dockerfile"));
  const final = all.at(-1)!;
  const named = (name: string) => all.find((stage) => new RegExp(`\\bAS\\s+${name}$`, "i").test(stage[0]!.args))!;
  const scratch = mkdtempSync(path.join(tmpdir(), "guardgate-image-"));
  let child: ChildProcess | undefined;
  // The scratch folder holds a whole `npm ci`: on a loaded machine removing it takes a while.
  afterAll(async () => {
    if (child?.exitCode === null) child.kill("SIGKILL");
    await rm(scratch, { recursive: true, force: true });
  }, 300_000);

  it("builds from the build stage's COPY list alone, and the final stage's command serves: /ready 200, HEALTHCHECK passes, a denying guardrail 446", async () => {
    // The final stage's production dependencies are linked from this checkout (see below).
    assertInstalledFromLockfile();
    // The final image's dist comes from a stage: run that stage's instructions in an empty folder.
    const distCopy = final.find((i) => i.op === "COPY" && /--from=\S+.*\s\/app\/dist\b/.test(i.args))!;
    const buildStage = named(/--from=(\S+)/.exec(distCopy.args)![1]!);
    const build = path.join(scratch, "build");
    mkdirSync(build);
    for (const { op, args } of buildStage.slice(1)) {
      if (op === "WORKDIR" || op === "ENV") continue;
      if (op === "COPY") copyFromContext(args, build);
      // The stage's own `npm ci` from the lockfile, run as written; from npm's cache where it holds
      // the packages (install scripts are off in this stage, so nothing is compiled).
      else if (op === "RUN" && /\bnpm ci\b/.test(args)) await sh(args.replace(/\bnpm ci\b/, "npm ci --prefer-offline"), build);
      else if (op === "RUN") await sh(args, build);
      else throw new Error(`the build stage has a ${op} this test does not run`);
    }

    // The final stage: its files from the context and the build, then its command.
    const image = path.join(scratch, "app");
    const data = path.join(scratch, "data");
    mkdirSync(image);
    mkdirSync(data);
    const buildName = buildStage[0]!.args.split(/\s+/).at(-1);
    for (const { args } of final.slice(1).filter((i) => i.op === "COPY")) {
      const from = /--from=(\S+)/.exec(args)?.[1];
      const { sources, dest } = copyArgs(args);
      if (!from) copyFromContext(args, image);
      // The production dependencies (`npm ci --omit=dev`, then the native rebuild): linked from this
      // checkout, whose install is the lockfile's (asserted above; docs/deploy.md).
      else if (sources[0] === "/app/node_modules") symlinkSync(path.join(root, "node_modules"), path.join(image, dest), "dir");
      else if (from === buildName)
        cpSync(path.join(build, path.relative("/app", sources[0]!)), path.join(image, dest), { recursive: true });
      else throw new Error(`the final stage copies ${sources[0]} from ${from}, which this test does not build`);
    }
    const port = await freePort();
    const env = Object.fromEntries(final.filter((i) => i.op === "ENV").map((i) => i.args.split("=") as [string, string]));
    // The image's port and data folder, on this machine: a free port and a temporary folder.
    const command = [
      ...execForm(final.find((i) => i.op === "ENTRYPOINT")!.args),
      ...execForm(final.find((i) => i.op === "CMD")!.args),
    ].map((word) => (word === "8787" ? String(port) : word === "/data" ? data : word === "0.0.0.0" ? "127.0.0.1" : word));
    expect(command[0]).toBe("node");
    let output = "";
    child = spawn(process.execPath, command.slice(1), { cwd: image, env: cleanEnv(env) });
    child.stdout!.on("data", (chunk) => (output += chunk));
    child.stderr!.on("data", (chunk) => (output += chunk));
    const url = `http://127.0.0.1:${port}`;
    let ready = 0;
    for (let i = 0; i < 600 && ready !== 200; i++) {
      if (child.exitCode !== null) throw new Error(`the image's command exited with ${child.exitCode}:\n${output}`);
      ready = await fetch(`${url}/ready`).then(
        (r) => r.status,
        () => 0,
      );
      if (ready !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(ready).toBe(200);

    // The HEALTHCHECK's own command, against this port.
    const healthcheck = execForm(/CMD\s+(\[.*\])\s*$/.exec(final.find((i) => i.op === "HEALTHCHECK")!.args)![1]!).map((word) =>
      word.replace("127.0.0.1:8787", `127.0.0.1:${port}`),
    );
    const healthy = await new Promise<number>((resolve) =>
      execFile(process.execPath, healthcheck.slice(1), (error) => resolve(error ? Number(error.code ?? 1) : 0)),
    );
    expect(healthy).toBe(0);

    const keys = JSON.parse(readFileSync(path.join(data, "initial-keys.json"), "utf8")) as { api_key: string };
    const denied = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gateway-api-key": keys.api_key,
        "x-gateway-config": JSON.stringify({
          input_guardrails: [{ deny: true, regexMatch: { rule: "(?i)password", not: true } }],
        }),
      },
      body: JSON.stringify({ model: "@mock/mock-model", messages: [{ role: "user", content: "my password is hunter2" }] }),
    });
    expect(denied.status).toBe(446);
    expect(((await denied.json()) as { error: { type: string } }).error.type).toBe("hooks_failed");
    // The console was built into the image too.
    expect((await fetch(`${url}/console/`)).status).toBe(200);
  }, 1_200_000);
});

describe("docker-compose.yaml", () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed YAML document, read field by field
  const compose = YAML.parse(read("docker-compose.yaml"), { merge: true }) as { services: Record<string, any> };
  const gateways = ["gateway1", "gateway2", "gateway3"];

  it("runs three gateways over one Postgres and one Redis, behind a balancer that knows all three", () => {
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining([...gateways, "postgres", "redis", "balancer"]));
    for (const name of gateways) {
      const env = compose.services[name].environment;
      expect(env.GUARDGATE_STORE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//);
      expect(env.GUARDGATE_REDIS_URL).toBe("redis://redis:6379");
      expect(env.GUARDGATE_SECRET_KEY).toBeDefined();
    }
    const nginx = read("deploy/nginx.conf");
    for (const name of gateways) expect(nginx).toContain(`server ${name}:8787`);
  });

  it("starts the others only once the first gateway has set up the store", () => {
    for (const name of ["gateway2", "gateway3"]) {
      expect(compose.services[name].depends_on.gateway1.condition).toBe("service_healthy");
    }
  });

  it("has every gateway trust X-Forwarded-For from the balancer's fixed address alone", () => {
    const file = parseGatewayFile(read("deploy/gateway.yaml"), "deploy/gateway.yaml");
    const balancer = compose.services.balancer.networks.default.ipv4_address;
    expect(file.settings?.trust_proxy).toEqual([balancer]);
    for (const name of gateways) {
      const service = compose.services[name];
      const config = service.command.indexOf("--config");
      expect(config).toBeGreaterThan(0);
      const mounted = service.volumes.find((v: string) => v.endsWith(`:${service.command[config + 1]}:ro`));
      expect(mounted).toBe(`./deploy/gateway.yaml:${service.command[config + 1]}:ro`);
    }
  });

  it("names only settings the gateway reads", () => {
    const sources = ["server/store/open.ts", "server/store/secret-box.ts", "server/lifecycle/start.ts"].map(read).join("\n");
    for (const key of Object.keys(compose.services.gateway1.environment)) expect(sources).toContain(key);
  });
});
