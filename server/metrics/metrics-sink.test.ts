import { describe, expect, it } from "vitest";
import { buildRecord, type RequestLogRecord } from "../logs/record.js";
import type { RequestLogSink } from "../logs/sink.js";
import { GatewayMetrics } from "./gateway-metrics.js";
import { MetricsLogSink } from "./metrics-sink.js";

const record = buildRecord({
  id: "req-1",
  started: performance.now(),
  origin: {
    workspaceId: "ws",
    apiKeyId: "key",
    route: "/v1/chat/completions",
    requestType: "chatComplete",
    stream: false,
    inlineGuardrails: [],
  },
  status: 200,
  hookResults: { before_request_hooks: [] },
});

describe("the metrics sink", () => {
  it("hands the store what a durable answer waits for: the record and `committed`", async () => {
    const writes: Array<{ record: RequestLogRecord; options: { committed?: boolean } | undefined }> = [];
    const inner: RequestLogSink = {
      write: async (written, options) => {
        writes.push({ record: written, options });
      },
    };
    const sink = new MetricsLogSink(inner, new GatewayMetrics());
    await sink.write(record, { committed: true });
    await sink.write(record);
    expect(writes).toEqual([
      { record, options: { committed: true } },
      { record, options: undefined },
    ]);
  });

  it("rejects as the store does, so a durable answer is not sent on a record that was not written", async () => {
    const sink = new MetricsLogSink({ write: () => Promise.reject(new Error("disk full")) }, new GatewayMetrics());
    await expect(sink.write(record, { committed: true })).rejects.toThrow("disk full");
  });
});
