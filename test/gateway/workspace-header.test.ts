/**
 * `x-gateway-workspace` with a workspace's own key: naming the key's workspace changes nothing,
 * naming another is refused on the model and hook routes alike — never ignored, so a caller cannot
 * believe it acts in a workspace it does not.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chat, type ManagedTestGateway, startManaged } from "../support/managed.js";

let gw: ManagedTestGateway;
beforeAll(async () => {
  gw = await startManaged();
});
afterAll(async () => {
  await gw.close();
});

const evaluate = {
  side: "input",
  guardrails: [{ checks: [{ id: "default.wordCount", parameters: { maxWords: 5 } }] }],
  request: { messages: [{ role: "user", content: "hi" }] },
};

describe("a workspace key naming a workspace", () => {
  it("acts as before when it names its own", async () => {
    const headers = { "x-gateway-workspace": gw.keys.workspace_id };
    const answer = await gw.call("POST", "/v1/chat/completions", { key: gw.keys.api_key, body: chat("@mock/m"), headers });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const hook = await gw.call("POST", "/v1/hooks/evaluate", { key: gw.keys.api_key, body: evaluate, headers });
    expect(hook.status, JSON.stringify(hook.body)).toBe(200);
  });

  it.each([
    ["/v1/chat/completions", chat("@mock/m")],
    ["/v1/hooks/evaluate", evaluate],
  ])("is refused on %s when it names another, saying which", async (url, body) => {
    const answer = await gw.call("POST", url, {
      key: gw.keys.api_key,
      body,
      headers: { "x-gateway-workspace": "ws_somewhere_else" },
    });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe("workspace_not_of_key");
    expect(answer.body.error.message).toContain('"ws_somewhere_else" is not this key\'s workspace');
  });
});
