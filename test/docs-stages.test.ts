/** docs/architecture.md's "One request" names the pipeline's stages in the order the code walks them. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
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
