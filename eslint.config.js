// Lint rules: ESLint's and typescript-eslint's recommended sets over the TypeScript sources, and
// core's boundary: core/ imports nothing outside itself, and code outside core/ reaches core only
// through its public entry (core/index.ts), its internal entry (core/internal.ts) or
// `guardgate/testing` (core/testing/index.ts); core/types.ts and core/index.console.ts (what the
// console's browser build reads for core/index.ts) are refused too. Core's tests may also use the package entry
// (index.ts), which adds the built-in plugins, and the test helpers in test/support/. server/ imports
// only down its ladder (server/ladder.json, eslint/server-ladder.js).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import { serverLadder } from "./eslint/server-ladder.js";

// The console's browser build writes its specifiers without an extension.
const CORE_ENTRIES = "(index|internal)(\\.js)?$|testing/index(\\.js)?$";

/** no-restricted-imports options refusing relative imports that climb out of a folder `depth` levels inside core. */
function leavingCore(depth, allowPackageEntry) {
  const climb = "\\.\\./".repeat(depth + 1);
  return {
    patterns: [
      {
        regex: `^(\\./)?${climb}${allowPackageEntry ? "(?!index\\.js$|test/support/)" : ""}`,
        message: allowPackageEntry
          ? "core's tests import nothing outside core but the package entry (index.ts) and test/support/."
          : "core/ stands alone: it imports nothing outside core/ (built-in plugins are handed to the engine).",
      },
    ],
  };
}

export const coreBoundary = [
  {
    files: ["**/*.ts", "**/*.tsx"],
    ignores: ["core/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: `^(\\.\\.?/)+core/(?!${CORE_ENTRIES})`,
              message:
                "import core through core/index.js (public) or core/internal.js (guardgate's own code), not its modules (its result types too come through core/index.js).",
            },
          ],
        },
      ],
    },
  },
  ...[0, 1, 2].flatMap((depth) => {
    const files = [`core/${"*/".repeat(depth)}*.ts`];
    return [
      { files, ignores: ["**/*.test.ts"], rules: { "no-restricted-imports": ["error", leavingCore(depth, false)] } },
      {
        files: files.map((f) => f.replace(/\.ts$/, ".test.ts")),
        rules: { "no-restricted-imports": ["error", leavingCore(depth, true)] },
      },
    ];
  }),
];

export default tseslint.config(
  { ignores: ["**/dist/", "**/node_modules/", "bench/results/", "**/fixtures/", "test/.readme-run/", "coverage/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { console: "readonly", process: "readonly", URL: "readonly" } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  ...coreBoundary,
  {
    files: ["server/**/*.ts"],
    ignores: ["**/*.test.ts"],
    plugins: { guardgate: { rules: { "server-ladder": serverLadder } } },
    rules: { "guardgate/server-ladder": "error" },
  },
);
