/**
 * docs/architecture.md's "One request" names the pipeline's stages in the order the code walks them,
 * and, along them, exactly the files on one request's path as `npm run bench:request-files` last
 * measured them (bench/results/request-files.json), split by the rule of bench/request-path.ts.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runtimeImports, splitPath } from "../bench/request-path.js";
import { Pipeline, type PipelineDeps } from "../server/request/pipeline.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The numbered stage names of the "One request" section, in the order written, nested ones in place. */
function documentedStages(): string[] {
  const text = readFileSync(path.join(root, "docs/architecture.md"), "utf8");
  const section = text.slice(text.indexOf("## One request"), text.indexOf("### Adding a surface"));
  return [...section.matchAll(/^\s*\d+\. \*\*([a-z]+)\*\*/gm)].map((match) => match[1] as string);
}

describe("the pipeline's stages", () => {
  it("are the ones docs/architecture.md lists, in order: the request's, each target's within targets, the hook call's", () => {
    // The stage lists are made from the deps' objects without calling them, so empty stand-ins do.
    const pipeline = new Pipeline({ routing: {}, phases: {}, retryTiming: {}, logBodies: false } as unknown as PipelineDeps);
    const { request, target, hook } = pipeline.stages;
    const expected = [...request.flatMap((name) => (name === "targets" ? [name, ...target] : [name])), ...hook];
    expect(expected).toEqual(["open", "targets", "prepare", "call", "record", "phases", "record"]);
    expect(documentedStages()).toEqual(expected);
  });
});

/** The `server/` files the inference part of "One request" names (from the route to the record), sorted, without repeats. */
function documentedPathFiles(): string[] {
  const text = readFileSync(path.join(root, "docs/architecture.md"), "utf8");
  const part = text.slice(
    text.indexOf("Before the pipeline, the **route**"),
    text.indexOf("The hook routes (`routes/hooks.ts`)"),
  );
  const named = [...part.matchAll(/`((?:server\/)?[\w/.-]+\.ts)`/g)].map((match) => match[1] as string);
  return [...new Set(named.map((file) => (file.startsWith("server/") ? file : `server/${file}`)))].sort();
}

describe("the files one request passes through", () => {
  const measured = JSON.parse(readFileSync(path.join(root, "bench/results/request-files.json"), "utf8")) as {
    count: number;
    pathCount: number;
    date: string;
    files: string[];
    path: string[];
    leaves: string[];
  };

  it("were measured on today's files: every file that ran still exists (else rerun npm run bench:request-files)", () => {
    expect(measured.files.filter((file) => !existsSync(path.join(root, file)))).toEqual([]);
  });

  it("are split into path and leaves by the rule of bench/request-path.ts over today's imports", () => {
    const split = splitPath(root, measured.files);
    expect({ path: measured.path, leaves: measured.leaves }).toEqual(split);
    expect([measured.count, measured.pathCount]).toEqual([measured.files.length, measured.path.length]);
  });

  it("are, on the path, exactly the files docs/architecture.md's stages name, and as many as it says", () => {
    expect(documentedPathFiles()).toEqual(measured.path);
    const text = readFileSync(path.join(root, "docs/architecture.md"), "utf8");
    expect(text).toContain(`every \`server/\` file whose code ran (${measured.count} on ${measured.date}`);
    expect(text).toContain(`${measured.pathCount} files are on the path`);
  });

  it("tells a file that imports another that ran from a leaf, and skips imports of types only", () => {
    // open.ts imports gateway-headers.ts at run time; attempts.ts imports only types of stream-enforcer.ts.
    const ran = [
      "server/request/open.ts",
      "server/gateway-headers.ts",
      "server/request/attempts.ts",
      "server/request/stream-enforcer.ts",
    ];
    expect(splitPath(root, ran).path).toEqual(["server/request/open.ts"]);
    expect(runtimeImports(root, "server/request/attempts.ts")).not.toContain("server/request/stream-enforcer.ts");
  });
});
