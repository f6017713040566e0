import { describe, expect, it } from "vitest";
import { usage } from "./main.js";

describe("guardgate --help", () => {
  it("lists the commands with every summary starting in one column, within 100 columns", () => {
    const lines = usage().split("\n");
    const rows = lines.slice(lines.indexOf("commands:") + 1, lines.indexOf("", lines.indexOf("commands:")));
    expect(rows.map((r) => r.trim().split(/\s+/)[0])).toContain("credentials");
    const column = rows[0]!.search(/(?<=\S {2,})\S/);
    for (const row of rows) {
      expect(row.length, row).toBeLessThanOrEqual(100);
      // A command's line: its name, then the summary at the column; a wrapped line: only the column.
      if (/^ {2}\S/.test(row)) expect(row.search(/(?<=\S {2,})\S/), row).toBe(column);
      else expect(row.search(/\S/), row).toBe(column);
    }
  });
});
