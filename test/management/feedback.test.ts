/**
 * Feedback on answers end to end: the official `openai` client asks through a managed gateway,
 * reads `x-gateway-request-id` and sends feedback on it with the same client; the feedback shows
 * in the admin log view, the log filter and the metric, and never crosses workspaces.
 */
import OpenAI, { NotFoundError, BadRequestError } from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { type ManagedTestGateway, startManaged } from "../support/managed.js";

const TOKEN = "metrics-token-0123456789";
const gateways: ManagedTestGateway[] = [];

afterEach(async () => {
  for (const gateway of gateways.splice(0)) await gateway.close();
});

async function start(options: Parameters<typeof startManaged>[0] = {}) {
  const gateway = await startManaged({ file: { metrics: { token: TOKEN } }, ...options });
  gateways.push(gateway);
  const base = await gateway.app.listen({ port: 0, host: "127.0.0.1" });
  const client = (key: string) =>
    new OpenAI({ baseURL: `${base}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: { "x-gateway-api-key": key } });
  return { gateway, client };
}

/** A second workspace of the organization, with a key of its own. */
async function otherWorkspaceKey(gateway: ManagedTestGateway): Promise<string> {
  const admin = gateway.keys.admin_key;
  const ws = await gateway.call("POST", "/admin/v1/workspaces", { key: admin, body: { name: "Other" } });
  const key = await gateway.call("POST", "/admin/v1/api-keys", {
    key: admin,
    body: { name: "other", role: "member", workspace_id: ws.body.id },
  });
  return key.body.key as string;
}

describe("POST /v1/feedback", () => {
  it("takes feedback on an answer the openai client got, shows it in the log view and filter, and hides it from other workspaces", async () => {
    const { gateway, client } = await start();
    const openai = client(gateway.keys.api_key);
    const { response } = await openai.chat.completions
      .create({ model: "@mock/m", messages: [{ role: "user", content: "hello" }] })
      .withResponse();
    const traceId = response.headers.get("x-gateway-request-id");
    expect(traceId).toMatch(/^[0-9a-f-]{36}$/);

    const sent = await openai.post<{ status: string; message: string; feedback_ids: string[] }>("/feedback", {
      body: { trace_id: traceId, value: -7, weight: 0.5, metadata: { user: "u-42", reason: "wrong answer" } },
    });
    expect(sent).toMatchObject({ status: "success", feedback_ids: [expect.stringMatching(/^fb_/)] });
    const feedbackId = sent.feedback_ids[0]!;

    // Another workspace's key learns nothing: 404 for the trace and for the feedback id.
    const other = client(await otherWorkspaceKey(gateway));
    await expect(other.post("/feedback", { body: { trace_id: traceId, value: 5 } })).rejects.toBeInstanceOf(NotFoundError);
    await expect(other.put(`/feedback/${feedbackId}`, { body: { value: 5 } })).rejects.toBeInstanceOf(NotFoundError);

    const updated = await openai.put<{ feedback_ids: string[] }>(`/feedback/${feedbackId}`, { body: { value: -6 } });
    expect(updated.feedback_ids).toEqual([feedbackId]);

    await gateway.app.guardgate.drainLogs();
    await gateway.managed.sink.flush();
    const admin = gateway.keys.admin_key;
    const view = await gateway.call("GET", `/admin/v1/logs/${traceId}`, { key: admin });
    expect(view.status).toBe(200);
    expect(view.body.feedback).toEqual([
      {
        id: feedbackId,
        value: -6,
        weight: 0.5,
        metadata: { user: "u-42", reason: "wrong answer" },
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
    const ids = async (query: string) =>
      (await gateway.call("GET", `/admin/v1/logs?${query}`, { key: admin })).body.data.map((l: { id: string }) => l.id);
    expect(await ids("feedback_max=-5")).toEqual([traceId]);
    expect(await ids("feedback_min=0")).toEqual([]);
    expect((await gateway.call("GET", "/admin/v1/logs?feedback_min=11", { key: admin })).status).toBe(400);

    const scrape = await gateway.call("GET", "/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(scrape.text).toMatch(/^guardgate_feedback_total 1$/m);
  });

  it("accepts feedback sent before the log writer has stored the answer's record", async () => {
    // Records wait a minute for companions: nothing is stored while the test runs, unless flushed.
    const { gateway, client } = await start({ logFlushMs: 60_000 });
    const openai = client(gateway.keys.api_key);
    const { response } = await openai.chat.completions
      .create({ model: "@mock/m", messages: [{ role: "user", content: "hello" }] })
      .withResponse();
    const traceId = response.headers.get("x-gateway-request-id")!;
    await gateway.app.guardgate.drainLogs();
    expect(await gateway.managed.store.logs.get(traceId)).toBeUndefined();

    const sent = await openai.post<{ feedback_ids: string[] }>("/feedback", { body: { trace_id: traceId, value: 9 } });
    expect(sent.feedback_ids).toHaveLength(1);

    await gateway.managed.sink.flush();
    const view = await gateway.call("GET", `/admin/v1/logs/${traceId}`, { key: gateway.keys.admin_key });
    expect(view.body.feedback).toMatchObject([{ value: 9, weight: 1, metadata: {} }]);
  });

  it("answers a trace id no request has with 404, and a bad body with 400 naming the field", async () => {
    const { gateway, client } = await start();
    const openai = client(gateway.keys.api_key);
    await expect(openai.post("/feedback", { body: { trace_id: "no-such-request", value: 1 } })).rejects.toMatchObject({
      status: 404,
      error: { code: "unknown_trace" },
    });
    const { response } = await openai.chat.completions
      .create({ model: "@mock/m", messages: [{ role: "user", content: "hi" }] })
      .withResponse();
    const traceId = response.headers.get("x-gateway-request-id")!;
    const refused = async (body: unknown) => {
      const error = await openai.post("/feedback", { body }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BadRequestError);
      return (error as BadRequestError).message;
    };
    expect(await refused({ trace_id: traceId, value: 11 })).toMatch(/value: must be an integer from -10 to 10/);
    expect(await refused({ trace_id: traceId, value: 1.5 })).toMatch(/value: must be an integer/);
    expect(await refused({ trace_id: traceId })).toMatch(/value: is required/);
    expect(await refused({ trace_id: traceId, value: 1, weight: 2 })).toMatch(/weight: must be a number from 0 to 1/);
    expect(await refused({ trace_id: traceId, value: 1, metadata: { n: 3 } })).toMatch(/metadata\.n: must be a string/);
    expect(await refused({ trace_id: traceId, value: 1, metadata: [] })).toMatch(/metadata: must be an object/);
    expect(await refused({ value: 1 })).toMatch(/trace_id: is required/);
    expect(await refused({ trace_id: traceId, value: 1, score: 3 })).toMatch(/score: is not a field of feedback/);
    // Without a key: 401, as on every /v1 route.
    expect((await gateway.call("POST", "/v1/feedback", { body: { trace_id: traceId, value: 1 } })).status).toBe(401);
  });
});
