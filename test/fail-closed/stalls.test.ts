/**
 * One request must not stall the others, and a start must not half-happen: a megabyte of one
 * character streamed by a provider that reports no usage is counted while /health keeps
 * answering; a config file with a mistake in its last record leaves nothing of it in the store.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { chat, startManaged } from "../support/managed.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * The bound the gateway aims for is 50 ms. The machine running the tests is shared (a load average
 * of 17 on 2 cores while this was written, where the slowest /health answer measured 117–630 ms),
 * so the assertion allows a second: counting a megabyte of one character on the event loop held
 * every request for minutes before the count was linear and yielding (100 KB alone took 7 s).
 */
const HEALTH_BOUND_MS = 1_000;

describe("a long run of one character", () => {
  it("is counted while /health keeps answering", async () => {
    const gw = await startManaged();
    try {
      await gw.app.listen({ port: 0, host: "127.0.0.1" });
      const base = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
      const text = "a".repeat(1 << 20);
      let streaming = true;
      const latencies: number[] = [];
      const probe = (async () => {
        while (streaming) {
          const started = performance.now();
          const health = await fetch(`${base}/health`);
          await health.text();
          latencies.push(performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      const response = await fetch(`${base}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-gateway-api-key": gw.keys.api_key },
        body: JSON.stringify(chat("@mock/m", "hi", { stream: true, mock_response: text })),
      });
      expect(response.status).toBe(200);
      const streamed = await response.text();
      expect(streamed.length).toBeGreaterThan(1 << 20);
      const id = response.headers.get("x-gateway-request-id") as string;
      // The record (and with it the token count) is written after the stream ends.
      await gw.managed.sink.flush();
      await gw.app.guardgate.drainLogs();
      await gw.managed.sink.flush();
      streaming = false;
      await probe;
      const view = await gw.call("GET", `/admin/v1/logs/${id}`, { key: gw.keys.admin_key });
      expect(view.status).toBe(200);
      expect(view.body.output_tokens).toBeGreaterThan(1000);
      expect(latencies.length).toBeGreaterThan(0);
      expect(Math.max(...latencies)).toBeLessThan(HEALTH_BOUND_MS);
    } finally {
      await gw.close();
    }
  }, 60_000);
});

describe("a config file with a mistake", () => {
  it("stops the start and leaves none of the file in the store", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "guardgate-seed-"));
    dirs.push(dir);
    const good = { id: "no-hello", checks: [{ id: "default.contains", parameters: { words: ["hello"], operator: "none" } }] };
    await expect(
      startManaged({
        dir,
        file: {
          api_keys: [{ key: "gk-seeded-key-0123456789" }],
          guardrails: [good],
          configs: [{ id: "broken", config: { input_guardrails: ["no-hello"], overide_params: {} } }],
        },
      }),
    ).rejects.toThrow("overide_params: unknown key; did you mean override_params?");
    const gw = await startManaged({ dir });
    try {
      const guardrails = await gw.call("GET", `/admin/v1/workspaces/${gw.keys.workspace_id}/guardrails`, {
        key: gw.keys.admin_key,
      });
      expect(guardrails.status).toBe(200);
      expect(guardrails.body.data.map((g: { id: string }) => g.id)).not.toContain("no-hello");
      const seededKey = await gw.call("POST", "/v1/chat/completions", { key: "gk-seeded-key-0123456789", body: chat("@mock/m") });
      expect(seededKey.status).toBe(401);
    } finally {
      await gw.close();
    }
  });
});
