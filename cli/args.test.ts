import { describe, expect, it } from "vitest";
import { type CommandArgs, type Flag, helpOf, parseCommand } from "./args.js";

const ARGS = {
  usage: ["demo run NAME [--count N] [--loud]", "demo list"],
  entries: { run: "runs NAME", list: "lists what ran" },
  flags: {
    count: { type: "string", default: "1", value: "N", help: "how many times (default 1)" },
    loud: { type: "boolean", short: "l", help: "say it louder\nand longer" },
    n: { type: "string", short: "n", value: "N", help: "a one-letter flag" },
    tag: { type: "string", multiple: true, value: "TAG", help: "a tag; may be repeated" },
  },
} as const satisfies CommandArgs<Record<string, Flag>>;

describe("a command's arguments", () => {
  it("renders --help from the flags it parses", () => {
    const help = helpOf(ARGS);
    expect(help.split("\n").slice(0, 2)).toEqual([
      "usage: guardgate demo run NAME [--count N] [--loud]",
      "       guardgate demo list",
    ]);
    expect(help).toContain("  run ");
    expect(help).toContain("  --count N ");
    expect(help).toContain("  -l, --loud ");
    expect(help).toMatch(/\n {2}-n N +a one-letter flag/);
    expect(help).toMatch(/say it louder\n +and longer/);
    expect(help).toContain("  -h, --help");
    for (const name of Object.keys(ARGS.flags)) expect(help).toMatch(new RegExp(`-${name.length > 1 ? "-" : ""}${name}\\b`));
  });

  it("parses values, defaults, repeats and positionals", () => {
    const { values, positionals, help } = parseCommand(ARGS, ["run", "x", "-l", "--tag", "a", "--tag", "b"]);
    expect(positionals).toEqual(["run", "x"]);
    expect(values).toMatchObject({ count: "1", loud: true, tag: ["a", "b"] });
    expect(help).toBe(false);
    expect(parseCommand(ARGS, ["-h"]).help).toBe(true);
  });

  it("refuses an unknown flag by name, and positionals where the command takes none", () => {
    expect(() => parseCommand(ARGS, ["run", "--colour"])).toThrow(/Unknown option '--colour'/);
    expect(() => parseCommand({ ...ARGS, positionals: false }, ["run"])).toThrow(/Unexpected argument 'run'/);
  });
});

describe("a long usage line", () => {
  it("continues under the command's first argument", () => {
    const help = helpOf({
      usage: ["demo make --name NAME [--a A]\n [--b B]", "demo list (--x X | --y Y)\n    [--z Z]"],
      flags: {},
    });
    expect(help.split("\n").slice(0, 4)).toEqual([
      "usage: guardgate demo make --name NAME [--a A]",
      "                           [--b B]",
      "       guardgate demo list (--x X | --y Y)",
      "                           [--z Z]",
    ]);
  });
});
