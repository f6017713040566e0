/**
 * Core's boundary as the lint rule holds it: code outside core reaches core only through its
 * public and internal entries, and core imports nothing outside itself.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const eslint = new ESLint({ cwd: root });

/** The no-restricted-imports messages ESLint gives `source` as the file `file`. */
async function boundaryErrors(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

describe("core boundary", () => {
  it("refuses a core module imported from outside core", async () => {
    const errors = await boundaryErrors(
      "server/example.ts",
      'import { joinPath } from "../core/config/path.js";\nvoid joinPath;\n',
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("core/index.js (public) or core/internal.js");
    expect(
      await boundaryErrors(
        "plugins/default/checks/example.ts",
        'import { PART_SEPARATOR } from "../../../core/content.js";\nvoid PART_SEPARATOR;\n',
      ),
    ).toHaveLength(1);
    expect(
      await boundaryErrors("test/example.ts", 'import type { Engine } from "../core/engine.js";\nexport type E = Engine;\n'),
    ).toHaveLength(1);
  });

  it("lets code outside core use core's entries", async () => {
    const source = [
      'import { createEngine } from "../core/index.js";',
      'import { joinPath } from "../core/internal.js";',
      'import { testCheck } from "../core/testing/index.js";',
      "void createEngine, joinPath, testCheck;",
      "",
    ].join("\n");
    expect(await boundaryErrors("server/example.ts", source)).toEqual([]);
  });

  it("refuses core's types module and the console's view of the entry: core has two entries", async () => {
    const source = 'import type { GuardrailResult } from "../../core/types.js";\nexport type G = GuardrailResult;\n';
    expect(await boundaryErrors("server/logs/example.ts", source)).toHaveLength(1);
    expect(
      await boundaryErrors(
        "cli/example.ts",
        'import type { GuardrailResult } from "../core/index.console.js";\nexport type G = GuardrailResult;\n',
      ),
    ).toHaveLength(1);
    expect(await boundaryErrors("server/logs/example.ts", source.replace("core/types.js", "core/index.js"))).toEqual([]);
    expect(
      await boundaryErrors(
        "server/logs/example.ts",
        'import type { Engine } from "../../core/engine.js";\nexport type E = Engine;\n',
      ),
    ).toHaveLength(1);
  });

  it("refuses an import that leaves core, at any depth", async () => {
    const top = await boundaryErrors(
      "core/example.ts",
      'import { builtinPlugins } from "../plugins/builtin.js";\nvoid builtinPlugins;\n',
    );
    expect(top).toHaveLength(1);
    expect(top[0]).toContain("core/ stands alone");
    expect(
      await boundaryErrors("core/pool/example.ts", 'import { createApp } from "../../server/app.js";\nvoid createApp;\n'),
    ).toHaveLength(1);
    expect(
      await boundaryErrors("core/example.ts", 'import { createEngine } from "../index.js";\nvoid createEngine;\n'),
    ).toHaveLength(1);
  });

  it("lets core import itself, and its tests the package entry", async () => {
    expect(
      await boundaryErrors("core/pool/example.ts", 'import { runPhase } from "../phase/run-phase.js";\nvoid runPhase;\n'),
    ).toEqual([]);
    expect(
      await boundaryErrors("core/example.test.ts", 'import { createEngine } from "../index.js";\nvoid createEngine;\n'),
    ).toEqual([]);
    expect(
      await boundaryErrors("core/example.test.ts", 'import { createApp } from "../server/app.js";\nvoid createApp;\n'),
    ).toHaveLength(1);
  });
});
