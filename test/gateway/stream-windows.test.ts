/**
 * Window mode costs time linear in the stream's length: each window is checked with its held-back
 * tail only, never with all the text so far; checks that need the whole answer (counts, what the
 * text must contain) run once on it at the end; and a held stream's check time is bounded by
 * `stream_check_budget_ms`, past which it fails closed. A webhook check shows what each check saw.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FakeUpstream } from "../support/fake-upstream.js";
import { gatewayHeaders, startGateway, type TestGateway } from "../support/gateway.js";

const WINDOW = 200;
/** The held-back tail of a check that declares none. */
const TAIL = 64;

/** A webhook receiver recording the length of each text it was asked about. */
class Receiver {
  seen: number[] = [];
  delayMs = 0;
  readonly server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(parts).toString("utf8")) as { text: string };
      this.seen.push(body.text.length);
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ verdict: true }));
      }, this.delayMs);
    });
  });

  async start(): Promise<string> {
    this.server.listen(0, "127.0.0.1");
    await once(this.server, "listening");
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }
}

let upstream: FakeUpstream;
let gateway: TestGateway;
let receiver: Receiver;
let hookUrl: string;

beforeAll(async () => {
  upstream = await new FakeUpstream().start();
  receiver = new Receiver();
  hookUrl = await receiver.start();
  gateway = await startGateway({ file: { settings: { checks_allow_private_addresses: true, stream_check_budget_ms: 2_000 } } });
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
  receiver.server.close();
});

beforeEach(() => {
  upstream.reset();
  receiver.seen = [];
  receiver.delayMs = 0;
});

async function stream(config: Record<string, unknown>, text: string) {
  upstream.enqueue({ kind: "answer", text });
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...gatewayHeaders({ provider: "openai", custom_host: upstream.baseUrl, stream_window: WINDOW, ...config }),
    },
    body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "go" }] }),
  });
  const body = await response.text();
  const events = body
    .split("\n\n")
    .filter((block) => block.startsWith("data: {"))
    .map((block) => JSON.parse(block.slice(6)) as Record<string, unknown>);
  const streamed = events
    .map((event) => (event.choices as Array<{ delta: { content?: string } }> | undefined)?.[0]?.delta.content ?? "")
    .join("");
  return { response, body, events, streamed, id: response.headers.get("x-gateway-request-id") };
}

const words = (count: number) => Array.from({ length: count }, (_, i) => `word${i % 10} `).join("");

describe("window checks", () => {
  it("check each window with its held-back tail only: linear in the stream's length", async () => {
    const text = words(4_000);
    const config = { output_guardrails: [{ deny: true, stream_mode: "window", webhook: { webhookURL: hookUrl } }] };
    const { response, streamed } = await stream(config, text);
    expect(response.status).toBe(200);
    expect(streamed).toBe(text);
    // Every window check but the last (all of the text, once) saw a window, its tail and one event.
    const windows = receiver.seen.slice(0, -1);
    expect(windows.length).toBeGreaterThan(text.length / WINDOW / 2);
    for (const length of windows) expect(length).toBeLessThanOrEqual(WINDOW + TAIL + 16);
    expect(receiver.seen.at(-1)).toBe(text.length);
    // All the checks together read about twice the text, not the square of it.
    const total = receiver.seen.reduce((sum, length) => sum + length, 0);
    expect(total).toBeLessThan(3 * text.length);
  });

  it("still stop the stream on a match arriving across a window's end", async () => {
    const text = `${words(100)}the forbidden phrase ${words(100)}`;
    const config = {
      output_guardrails: [{ id: "no-phrase", deny: true, regexMatch: { rule: "forbidden phrase", not: true } }],
    };
    const { streamed, events } = await stream(config, text);
    expect(streamed).not.toContain("forbidden");
    expect((events.at(-1)?.error as { code: string } | undefined)?.code).toBe("hooks_failed");
  });
});

describe("checks of the whole answer", () => {
  it("run once on all of it at the end: a word the answer must contain, arriving late, is found", async () => {
    const text = `${words(300)}goodbye`;
    const config = {
      output_guardrails: [{ deny: true, stream_mode: "window", contains: { words: ["goodbye"], operator: "any" } }],
    };
    const { response, streamed, body } = await stream(config, text);
    expect(response.status).toBe(200);
    expect(streamed).toBe(text);
    expect(body).toContain("[DONE]");
  });

  it("deny at the end when the whole answer fails them, the log saying so", async () => {
    const text = words(300);
    const config = { output_guardrails: [{ id: "short", deny: true, stream_mode: "window", wordCount: { maxWords: 50 } }] };
    const { events, id } = await stream(config, text);
    expect((events.at(-1)?.error as { code: string } | undefined)?.code).toBe("hooks_failed");
    const record = await gateway.logs.waitFor((r) => r.id === id);
    expect(record.stream_stop?.guardrails).toEqual(["short"]);
  });

  it("hold the whole answer by default when a deny guardrail has one", async () => {
    const text = words(300);
    const config = { output_guardrails: [{ deny: true, wordCount: { maxWords: 50 } }] };
    const { response, streamed } = await stream(config, text);
    // Buffer mode: nothing left before the deny, which becomes a 446 answer.
    expect(response.status).toBe(446);
    expect(streamed).toBe("");
  });
});

describe("the check time of a held stream", () => {
  it("is bounded by stream_check_budget_ms: past it the stream fails closed with a clear error", async () => {
    receiver.delayMs = 150;
    const text = words(1_000);
    const config = { output_guardrails: [{ deny: true, stream_mode: "window", webhook: { webhookURL: hookUrl } }] };
    const { events, streamed, id } = await stream(config, text);
    const error = events.at(-1)?.error as { code: string; message: string } | undefined;
    expect(error?.code).toBe("stream_check_budget_exceeded");
    expect(error?.message).toContain("2000 ms");
    expect(streamed.length).toBeLessThan(text.length);
    const record = await gateway.logs.waitFor((r) => r.id === id);
    expect(record.error?.code).toBe("stream_check_budget_exceeded");
  });
});
