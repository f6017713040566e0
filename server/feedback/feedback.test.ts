/**
 * Feedback has a bound: at most FEEDBACK_LIMITS.perTrace entries on one answer (150 sent at once
 * store exactly that many; the rest are a typed 409), and each key's feedback calls are rate
 * limited on the limit counters, with `retry-after`, as API-key traffic is. Real SQLite store,
 * real fastify routes.
 */
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { logEntry } from "../../test/support/log-entry.js";
import { type TestPlane, tenant, testPlane } from "../../test/support/management.js";
import { GatewayError } from "../errors.js";
import { MemoryCounters } from "../limits/counters.js";
import { FEEDBACK_LIMITS, FeedbackService } from "./feedback.js";
import { FeedbackRate } from "./feedback-rate.js";
import { RecentRequests } from "./recent-requests.js";
import { feedbackRoutes } from "./routes.js";

let plane: TestPlane;
let app: FastifyInstance;

beforeEach(async () => {
  plane = await testPlane();
});

afterEach(async () => {
  await app?.close();
  await plane.close();
});

/** An app with the feedback routes over the plane's store; keys "k1" and "k2" belong to workspace A. */
async function start(rate?: FeedbackRate): Promise<{ trace: string }> {
  const t = await tenant(plane.management);
  const trace = "trace-1";
  await plane.store.logs.insert([logEntry(trace, new Date().toISOString(), { organization_id: t.org.id, workspace_id: t.a.id })]);
  app = Fastify();
  app.setErrorHandler((error, _request, reply) => {
    const status = error instanceof GatewayError ? error.status : 500;
    void reply.code(status).send({ error: { code: (error as GatewayError).code, message: (error as Error).message } });
  });
  const keys = {
    verify: async (key: string) => (key === "k1" || key === "k2" ? { id: key, workspaceId: t.a.id } : undefined),
  };
  const service = new FeedbackService({ store: plane.store, recent: new RecentRequests(), logWaitMs: 0 });
  await app.register(feedbackRoutes, { keys, service, ...(rate && { rate }) });
  await app.ready();
  return { trace };
}

const post = (key: string, body: unknown) =>
  app.inject({ method: "POST", url: "/v1/feedback", headers: { "x-gateway-api-key": key }, payload: body as object });

describe("feedback bounds", () => {
  it(`keeps at most ${FEEDBACK_LIMITS.perTrace} entries on one answer, however many are sent at once`, async () => {
    const { trace } = await start();
    const answers = await Promise.all(Array.from({ length: 150 }, (_, i) => post("k1", { trace_id: trace, value: i % 10 })));
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(FEEDBACK_LIMITS.perTrace);
    expect(statuses.filter((s) => s === 409)).toHaveLength(150 - FEEDBACK_LIMITS.perTrace);
    const refused = JSON.parse(answers.find((a) => a.statusCode === 409)!.body);
    expect(refused.error.code).toBe("feedback_limit_reached");
    expect(refused.error.message).toContain(`${FEEDBACK_LIMITS.perTrace}`);
    expect(await plane.store.feedback.forLogs([trace])).toHaveLength(FEEDBACK_LIMITS.perTrace);
    // Changing one of them is still allowed.
    const id = JSON.parse(answers.find((a) => a.statusCode === 200)!.body).feedback_ids[0];
    const put = await app.inject({
      method: "PUT",
      url: `/v1/feedback/${id}`,
      headers: { "x-gateway-api-key": "k1" },
      payload: { value: -3 },
    });
    expect(put.statusCode).toBe(200);
  });

  it("limits each key's feedback calls per minute with 429 and retry-after; another key goes on", async () => {
    const { trace } = await start(new FeedbackRate({ counters: new MemoryCounters(), perMinute: 5 }));
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 8; i++) {
      last = await post("k1", { trace_id: trace, value: 1 });
      statuses.push(last.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(JSON.parse(last!.body).error.code).toBe("rate_limit_exceeded");
    expect(Number(last!.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect((await post("k2", { trace_id: trace, value: 1 })).statusCode).toBe(200);
    expect(await plane.store.feedback.forLogs([trace])).toHaveLength(6);
  });
});
