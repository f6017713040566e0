import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { CONFIG_TYPOS } from "../test/support/config-typos.js";

// The CLI is tested as users run it: the built command, a real process, stdin and exit codes.
const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli/bin.js");
const dir = mkdtempSync(path.join(tmpdir(), "guardgate-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  const target = path.join(dir, name);
  writeFileSync(target, typeof content === "string" ? content : JSON.stringify(content));
  return target;
}

function guardgate(args: string[], stdin?: string) {
  const run = spawnSync(process.execPath, [bin, ...args], { input: stdin ?? "", encoding: "utf8" });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const noSsn = file("no-ssn.json", {
  id: "no-ssn",
  deny: true,
  checks: [{ id: "default.regexMatch", parameters: { rule: "\\d{3}-\\d{2}-\\d{4}", not: true } }],
});

describe("guardgate check", () => {
  it("exits 0 and prints only the evaluation JSON when the guardrails pass", () => {
    const run = guardgate(["check", "--guardrail", noSsn], JSON.stringify({ messages: [{ role: "user", content: "hello" }] }));
    expect(run.code).toBe(0);
    const evaluation = JSON.parse(run.stdout);
    expect(evaluation.status).toBe(200);
    expect(evaluation.results[0].id).toBe("no-ssn");
  });

  it("exits 1 when a guardrail fails", () => {
    const run = guardgate(["check", "--guardrail", noSsn, "--text", "my ssn is 123-45-6789"]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).status).toBe(446);
  });

  it("evaluates the output side of a config file on a response from stdin", () => {
    const config = file("config.json", { output_guardrails: [{ id: "short", wordCount: { maxWords: 3 } }] });
    const response = {
      id: "msg_1",
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "far too many words here" }],
    };
    const run = guardgate(
      ["check", "--guardrail", config, "--side", "output", "--request-type", "messages"],
      JSON.stringify(response),
    );
    expect(run.code).toBe(1);
    const evaluation = JSON.parse(run.stdout);
    expect(evaluation.status).toBe(246);
    expect(evaluation.results[0].checks[0].data.wordCount).toBe(5);
  });

  it.each([
    ["a missing file", ["check", "--guardrail", path.join(dir, "missing.json"), "--text", "x"], /cannot read/],
    [
      "malformed JSON in the file",
      ["check", "--guardrail", file("bad.json", "{oops"), "--text", "x"],
      /bad\.json is not valid JSON/,
    ],
    [
      "an unknown check",
      ["check", "--guardrail", file("unknown.json", { checks: [{ id: "default.nope" }] }), "--text", "x"],
      /guardrails\[0\]\.checks\[0\]\.id: unknown check "default\.nope"/,
    ],
    ["a bad side", ["check", "--guardrail", noSsn, "--side", "middle", "--text", "x"], /--side must be input or output/],
    ["an unknown option", ["check", "--guardrail", noSsn, "--colour"], /Unknown option '--colour'/],
    ["no --guardrail", ["check", "--text", "x"], /--guardrail FILE is required/],
  ])("exits 2 with one line on %s", (_name, args, message) => {
    const run = guardgate(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(message);
  });

  it("exits 2 on malformed JSON on stdin", () => {
    const run = guardgate(["check", "--guardrail", noSsn], "{not json");
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/stdin is not valid JSON/);
  });

  it("prints usage and exits 2 on an unknown command", () => {
    const run = guardgate(["frobnicate"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/unknown command "frobnicate"/);
  });

  it.each(CONFIG_TYPOS)("exits 2 on a config whose %s key is misspelt, naming %s", (typo, meant) => {
    const config = file(`typo-${typo}.json`, {
      [typo]: [{ deny: true, checks: [{ id: "default.contains", parameters: { words: ["hello"], operator: "none" } }] }],
    });
    const run = guardgate(["check", "--guardrail", config, "--text", "hello"]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`${typo}: unknown key; did you mean ${meant}?`);
  });

  it("warns on stderr about a peer gateway key it does not act on, and still evaluates", () => {
    const config = file("peer-key.json", {
      forward_headers: ["x-trace"],
      input_guardrails: [
        { deny: true, checks: [{ id: "default.contains", parameters: { words: ["hello"], operator: "none" } }] },
      ],
    });
    const run = guardgate(["check", "--guardrail", config, "--text", "hello"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("warning: config.forward_headers: accepted but not acted on");
  });
});
