/**
 * The executor is a server option passed to the engine, and a failure of asynchronous guardrails
 * (here: an executor that breaks on them) never reaches the answer or the process.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Executor, InlineExecutor } from "../../index.js";
import { gatewayHeaders, startGateway, type TestGateway } from "../support/gateway.js";

let gateway: TestGateway;
const ran: string[] = [];

beforeAll(async () => {
  gateway = await startGateway({
    executor: ({ registry }): Executor => {
      const inline = new InlineExecutor(registry);
      return {
        name: "breaks-on-async",
        run(task, signal) {
          ran.push(task.side);
          if (task.guardrails.every((g) => g.async)) return Promise.reject(new Error("the pool is down"));
          return inline.run(task, signal);
        },
        close: () => inline.close(),
      };
    },
  });
});

afterAll(() => gateway.close());

describe("executor option", () => {
  it("runs every phase through the given executor; an async phase that fails is logged, not answered", async () => {
    const config = {
      provider: "mock",
      input_guardrails: [{ wordCount: { minWords: 1 } }, { async: true, wordCount: { maxWords: 1 } }],
      output_guardrails: [{ async: true, wordCount: { maxWords: 1 } }],
    };
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...gatewayHeaders(config) },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hello there" }] }),
    });
    expect(response.status).toBe(200);
    const record = await gateway.logs.waitFor((r) => r.id === response.headers.get("x-gateway-request-id"));
    expect(record.hook_results.before_request_hooks.map((r) => r.async)).toEqual([false]);
    expect(record.hook_results.after_request_hooks).toEqual([]);
    expect(ran).toContain("output");
    // The gateway still serves.
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
  });
});
