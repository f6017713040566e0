/**
 * Over-deep JSON is refused while the body is read, before any JSON parser sees it: a body of
 * nested brackets costs one linear scan, never a parse, so it cannot hold the event loop.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { MAX_BODY_DEPTH } from "../../server/request/open.js";
import { gatewayHeaders, startGateway, type TestGateway } from "../support/gateway.js";

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(() => gateway.close());
afterEach(() => vi.restoreAllMocks());

/** Whether JSON.parse was handed a string of at least `bytes` characters while `run` ran. */
async function parsedLarge(bytes: number, run: () => Promise<void>): Promise<boolean> {
  const parse = JSON.parse;
  let seen = false;
  vi.spyOn(JSON, "parse").mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    if (typeof text === "string" && text.length >= bytes) seen = true;
    return parse(text, reviver);
  });
  await run();
  return seen;
}

async function post(body: string) {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { ...gatewayHeaders(), "content-type": "application/json" },
    body,
  });
  return { status: response.status, body: (await response.json()) as { error: { code: string; message: string } } };
}

describe("deep JSON is refused while reading", () => {
  it("refuses 4 MB of nested brackets with a 400 naming the limit, without parsing them", async () => {
    const half = 2_000_000;
    const body = `${"[".repeat(half)}${"]".repeat(half)}`;
    let answer: Awaited<ReturnType<typeof post>> | undefined;
    const parsed = await parsedLarge(half, async () => {
      answer = await post(body);
    });
    expect(answer?.status).toBe(400);
    expect(answer?.body.error.code).toBe("body_too_deep");
    expect(answer?.body.error.message).toContain(`${MAX_BODY_DEPTH} levels`);
    expect(parsed).toBe(false);
  });

  it("refuses a body too deep before its end, even when the rest would not parse", async () => {
    // Unclosed brackets: a parser would call it invalid JSON; the depth scan stops first.
    const answer = await post(`{"model":"@mock/m","messages":${"[".repeat(1_000_000)}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe("body_too_deep");
  });

  it("counts brackets inside strings as text, not nesting", async () => {
    const content = "[{".repeat(5_000);
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...gatewayHeaders(), "content-type": "application/json" },
      body: JSON.stringify({ model: "@mock/m", messages: [{ role: "user", content: `"\\${content}` }] }),
    });
    expect(response.status).toBe(200);
  });

  it("accepts a body exactly at the limit and refuses one level past it", async () => {
    const at = (depth: number) =>
      JSON.stringify({
        model: "@mock/m",
        messages: [{ role: "user", content: "hi" }],
        // The body object is the first level.
        extra: JSON.parse(`${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}`),
      });
    expect((await post(at(MAX_BODY_DEPTH))).status).toBe(200);
    const over = await post(at(MAX_BODY_DEPTH + 1));
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe("body_too_deep");
  });

  it("answers /health while a deep body is refused", async () => {
    const body = `${'{"a":'.repeat(600_000)}1${"}".repeat(600_000)}`;
    const [refused, health] = await Promise.all([post(body), fetch(`${gateway.url}/health`)]);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("body_too_deep");
    expect(health.status).toBe(200);
  });
});
