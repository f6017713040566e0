// Builds the console into dist/console: hashed, minified assets and an index.html that loads them
// as files (no inline script or style), so the page runs under a strict Content-Security-Policy.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root,
  base: "/console/",
  publicDir: false,
  logLevel: "warn",
  // Production JSX whatever NODE_ENV says (npm pack under a test runner builds too): the
  // development transform would embed source paths and grow the bundle by half.
  oxc: { jsx: { runtime: "automatic", importSource: "preact", development: false } },
  build: {
    outDir: fileURLToPath(new URL("../dist/console", import.meta.url)),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    target: "es2022",
  },
});
