import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["{core,plugins,server,cli,test}/**/*.test.ts"],
    // Two files at a time, whatever the core count (vitest's default on 2 cores is one): most files
    // wait on child processes, servers and sockets more than they compute. Tests wait on events,
    // not on the clock, so a busy machine makes them slower, never red.
    maxWorkers: 2,
    // Limits for a hang, not for speed: two files at a time on a 2-core machine that is busy with
    // other work as well stretch a test of 3 s on an idle machine past 30 s.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // expect.poll waits for what a test means (a change seen, a cache expired, a process ready); its
    // default of one second is a wall-clock bet a busy machine loses. A poll that passes returns at once.
    expect: { poll: { timeout: 20_000 } },
  },
});
