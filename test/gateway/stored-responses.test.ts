/**
 * The stored-response routes through the official openai client, over real sockets: read, list
 * input items, cancel and delete a response the gateway kept, each scoped to the caller's workspace.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Conversations } from "../../server/providers/conversations.js";
import { DEFAULT_WORKSPACE } from "../../server/sources/from-file.js";
import { MemoryStoredResponses } from "../../server/store/memory-responses.js";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";

const OTHER_KEY = "gk-test-other-workspace-0123";
const repository = new MemoryStoredResponses();
let gateway: TestGateway;

function client(key = API_KEY): OpenAI {
  return new OpenAI({
    apiKey: "unused",
    baseURL: `${gateway.url}/v1`,
    defaultHeaders: { "x-gateway-api-key": key },
    maxRetries: 0,
  });
}

const response = (id: string) => ({
  id,
  object: "response",
  created_at: 1,
  status: "completed",
  model: "m",
  output: [
    {
      type: "message",
      id: "msg_1",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "Paris", annotations: [] }],
    },
  ],
});

beforeAll(async () => {
  gateway = await startGateway({
    storedResponses: repository,
    file: { api_keys: [{ key: OTHER_KEY, workspace: "other" }] },
  });
  await repository.put({
    id: "resp_a",
    workspace_id: DEFAULT_WORKSPACE,
    previous_response_id: null,
    input: [
      { type: "message", role: "user", content: [{ type: "input_text", text: "capital?" }] },
      { type: "function_call_output", call_id: "c1", output: "France" },
    ],
    response: response("resp_a"),
    created_at: "2025-01-01T00:00:00.000Z",
  });
});

afterAll(() => gateway.close());

describe("stored responses through the openai client", () => {
  it("reads a stored response", async () => {
    const read = await client().responses.retrieve("resp_a");
    expect(read).toMatchObject({ id: "resp_a", status: "completed" });
    expect(read.output_text).toBe("Paris");
  });

  it("lists its input items, newest first by default, paged", async () => {
    const page = await client().responses.inputItems.list("resp_a", { limit: 1 });
    expect(page.data).toEqual([{ id: "resp_a_input_1", type: "function_call_output", call_id: "c1", output: "France" }]);
    expect(page.has_more).toBe(true);
    const all = await client().responses.inputItems.list("resp_a", { order: "asc" });
    expect(all.data.map((item) => item.type)).toEqual(["message", "function_call_output"]);
  });

  it("refuses to cancel a response that has finished", async () => {
    await expect(client().responses.cancel("resp_a")).rejects.toMatchObject({ status: 400, code: "invalid_request" });
  });

  it("answers another workspace's id and a missing one with the same 404", async () => {
    for (const [key, id] of [
      [OTHER_KEY, "resp_a"],
      [API_KEY, "resp_missing"],
    ] as const) {
      const error = await client(key)
        .responses.retrieve(id)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      expect(error).toMatchObject({ code: "response_not_found", message: expect.stringContaining(`'${id}' not found`) });
    }
    await expect(client(OTHER_KEY).responses.delete("resp_a")).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("deletes it, after which it is not found", async () => {
    await client().responses.delete("resp_a");
    await expect(client().responses.retrieve("resp_a")).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe("Conversations", () => {
  const repo = new MemoryStoredResponses();
  const request = (extra: Record<string, unknown> = {}) => ({ model: "m", input: "hi", ...extra });

  it("keeps a response with the conversation before it, and gives it back as the next turn's history", async () => {
    const conversations = new Conversations(repo, () => true);
    await conversations.keep("ws", request(), response("resp_1"));
    await conversations.keep("ws", request({ input: "and then?", previous_response_id: "resp_1" }), response("resp_2"));
    const history = await conversations.history("ws", "resp_2");
    expect(history.map((item) => [item.type, item.role])).toEqual([
      ["message", "user"],
      ["message", "assistant"],
      ["message", "user"],
      ["message", "assistant"],
    ]);
  });

  it("keeps nothing with store: false, or where the workspace keeps no bodies", async () => {
    await new Conversations(repo, () => true).keep("ws", request({ store: false }), response("resp_x"));
    await new Conversations(repo, () => false).keep("ws", request(), response("resp_y"));
    expect(await repo.get("ws", "resp_x")).toBeUndefined();
    expect(await repo.get("ws", "resp_y")).toBeUndefined();
  });

  it("refuses a previous_response_id of another workspace with a 404", async () => {
    await expect(new Conversations(repo, () => true).history("elsewhere", "resp_1")).rejects.toMatchObject({
      code: "response_not_found",
    });
  });
});
