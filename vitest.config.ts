import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["{core,plugins,server,cli,test}/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
