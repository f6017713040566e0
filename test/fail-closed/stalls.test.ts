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
 * The gateway promises that no /health answer waits more than 50 ms while another request's
 * megabyte is relayed and counted; `npm run bench:stalls` measures that promise. Counting a
 * megabyte of one character on the event loop held every request for minutes before the count was
 * linear; the relay and the count now give the event loop a turn every 2 ms (core/thread-share.ts).
 *
 * A test cannot hold the 50 ms bound: on a shared machine a probe's answer also waits for a core,
 * whatever the gateway does (a CPU profile of a 40–77 ms answer shows the gateway running for 4–6
 * ms of it). What it asserts is that /health is answered while the megabyte is on its way and that
 * no answer waits a second, which fails by far if counting holds the thread (100 KB took 7 s).
 */
const STALL_BOUND_MS = 1_000;

describe("a long run of one character", () => {
  it("is counted while /health keeps answering", async () => {
    const gw = await startManaged();
    try {
      await gw.app.listen({ port: 0, host: "127.0.0.1" });
      const base = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
      const health = async (): Promise<{ took: number; at: number }> => {
        const started = performance.now();
        const answer = await fetch(`${base}/health`);
        await answer.text();
        expect(answer.status).toBe(200);
        return { took: performance.now() - started, at: performance.now() };
      };
      const stream = (text: string) =>
        fetch(`${base}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-gateway-api-key": gw.keys.api_key },
          body: JSON.stringify(chat("@mock/m", "hi", { stream: true, mock_response: text })),
        });
      // The first answers set up the connection, compile the routes and load the tokenizer (which
      // `guardgate serve` loads before it listens): they measure the start, not a request.
      for (let i = 0; i < 3; i++) await health();
      await (await stream("warm up")).text();
      await gw.app.guardgate.drainLogs();
      let streaming = true;
      const probes: { took: number; at: number }[] = [];
      const probe = (async () => {
        while (streaming) {
          probes.push(await health());
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      })();
      const sent = performance.now();
      const response = await stream("a".repeat(1 << 20));
      expect(response.status).toBe(200);
      // Read as it comes, as a client would: decoding the whole body at once would hold this
      // process, which is also the gateway's, and be measured as the gateway's stall.
      let bytes = 0;
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.byteLength;
      const received = performance.now();
      expect(bytes).toBeGreaterThan(1 << 20);
      const id = response.headers.get("x-gateway-request-id") as string;
      // The record (and with it the token count) is written after the stream ends.
      await gw.managed.sink.flush();
      await gw.app.guardgate.drainLogs();
      await gw.managed.sink.flush();
      streaming = false;
      await probe;
      const view = await gw.call("GET", `/admin/v1/logs/${id}`, { key: gw.keys.admin_key });
      expect(view.status).toBe(200);
      expect(view.body.output_tokens).toBe(131_072);
      // /health was answered while the megabyte was still on its way, not only after it.
      expect(probes.filter((p) => p.at > sent && p.at < received).length).toBeGreaterThan(0);
      const worst = Math.max(...probes.map((p) => p.took));
      expect(worst).toBeLessThan(STALL_BOUND_MS);
    } finally {
      await gw.close();
    }
  });
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

describe("a megabyte of spaces from the mock", () => {
  it("is streamed in linear time", async () => {
    // Cutting the mock's text into words with `\s*\S+\s*` tried the pattern at each space in turn:
    // 100,000 spaces took 23 s, a megabyte hours.
    const gw = await startManaged();
    try {
      const answer = await gw.call("POST", "/v1/chat/completions", {
        key: gw.keys.api_key,
        body: chat("@mock/m", "hi", { stream: true, mock_response: " ".repeat(1 << 20) }),
      });
      expect(answer.status).toBe(200);
      expect(answer.text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    } finally {
      await gw.close();
    }
  });
});
