/**
 * A stream stopped by an output guardrail, seen from the management plane: the request log over a
 * real SQLite store and `GET /admin/v1/logs/:id` say which guardrail stopped it and after how many
 * characters; a saved guardrail carries its `stream_mode`, and a bad one is refused naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chat, type ManagedTestGateway, startManaged } from "../support/managed.js";

let gw: ManagedTestGateway;

beforeAll(async () => {
  gw = await startManaged();
});
afterAll(() => gw.close());

const base = () => `/admin/v1/workspaces/${gw.keys.workspace_id}`;

/** About 3,000 characters of words with "forbidden" near character 1,500. */
const LONG = `${"lorem ipsum dolor sit amet ".repeat(56)}forbidden ${"lorem ipsum dolor sit amet ".repeat(55)}`;

describe("a stopped stream in the request log", () => {
  it("records the stopping guardrail and the characters released, shown by the admin log view", async () => {
    const saved = await gw.call("POST", `${base()}/guardrails`, {
      key: gw.keys.admin_key,
      body: {
        id: "no-forbidden",
        side: "output",
        async: false,
        deny: true,
        stream_mode: "window",
        checks: [{ id: "default.regexMatch", parameters: { rule: "forbidden", not: true } }],
      },
    });
    expect(saved.status).toBe(201);
    const answer = await gw.call("POST", "/v1/chat/completions", {
      key: gw.keys.api_key,
      body: chat("@mock/m", "go", { stream: true, mock_response: LONG }),
      headers: { "x-gateway-config": JSON.stringify({ output_guardrails: ["no-forbidden"] }) },
    });
    expect(answer.status).toBe(200);
    const released = answer.text
      .split("\n\n")
      .filter((block) => block.startsWith('data: {"id"'))
      .map((block) => JSON.parse(block.slice(6)).choices[0].delta.content ?? "")
      .join("");
    expect(released).not.toContain("forbidden");
    expect(answer.text).toContain('"type":"hooks_failed"');
    // The record is written once the stream ended; the answer may be read before that.
    const url = `/admin/v1/logs/${answer.headers["x-gateway-request-id"]}`;
    let view = await gw.call("GET", url, { key: gw.keys.admin_key });
    for (const deadline = Date.now() + 5000; view.status === 404 && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await gw.managed.sink.flush();
      view = await gw.call("GET", url, { key: gw.keys.admin_key });
    }
    expect(view.status).toBe(200);
    expect(view.body.stream_stop).toEqual({ guardrails: ["no-forbidden"], released_chars: released.length, mode: "window" });
    expect(view.body.error).toMatchObject({ code: "hooks_failed" });
    expect(view.body.error_code).toBe("hooks_failed");
  });

  it("refuses a saved guardrail with an unknown stream_mode, naming the field", async () => {
    const refused = await gw.call("POST", `${base()}/guardrails`, {
      key: gw.keys.admin_key,
      body: { id: "bad-mode", stream_mode: "sometimes", checks: [{ id: "default.wordCount", parameters: { minWords: 1 } }] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("stream_mode");
  });

  it("refuses a saved config with a bad stream_window, naming the path, and accepts a good one", async () => {
    const refused = await gw.call("POST", `${base()}/configs`, {
      key: gw.keys.admin_key,
      body: { id: "bad-window", config: { targets: [{ provider: "@mock", stream_window: -5 }] } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("targets[0].stream_window");
    const saved = await gw.call("POST", `${base()}/configs`, {
      key: gw.keys.admin_key,
      body: {
        id: "held",
        config: { stream_mode: "buffer", stream_window: 100, output_guardrails: [{ wordCount: { minWords: 1 } }] },
      },
    });
    expect(saved.status).toBe(201);
  });
});
