/**
 * The deployment files, checked as a Dockerfile linter would (no image can be built here): stages,
 * the final image's user and dependencies, pinned bases, apt hygiene; and the compose file's fleet
 * matches the settings the gateway reads.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import YAML from "yaml";

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

  it("uses exec form for the command, and checks health on /health", () => {
    expect(final.find((i) => i.op === "ENTRYPOINT")?.args).toMatch(/^\[/);
    expect(final.find((i) => i.op === "CMD")?.args).toMatch(/^\[/);
    expect(final.find((i) => i.op === "HEALTHCHECK")?.args).toContain("/health");
  });
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

  it("names only settings the gateway reads", () => {
    const sources = ["server/store/open.ts", "server/store/secret-box.ts", "server/managed/start.ts"].map(read).join("\n");
    for (const key of Object.keys(compose.services.gateway1.environment)) expect(sources).toContain(key);
  });
});
