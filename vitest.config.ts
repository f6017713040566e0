import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["{core,plugins,server,cli,test}/**/*.test.ts"],
    // Two files at a time, whatever the core count (vitest's default on 2 cores is one): most files
    // wait on child processes, servers and sockets more than they compute. Tests wait on events,
    // not on the clock, so a busy machine makes them slower, never red.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
