/** A request log sink that counts each record in the gateway's metrics before handing it on. */
import type { RequestLogRecord } from "../logs/record.js";
import type { RequestLogSink } from "../logs/sink.js";
import type { GatewayMetrics } from "./gateway-metrics.js";

/** Counts every record, then writes it with `inner`; a record `inner` refuses is counted as dropped. */
export class MetricsLogSink implements RequestLogSink {
  constructor(
    private readonly inner: RequestLogSink,
    private readonly metrics: GatewayMetrics,
  ) {}

  async write(record: RequestLogRecord, options?: { committed?: boolean }): Promise<void> {
    this.metrics.observe(record);
    try {
      // `committed` must reach the store: a durable-log answer waits on it.
      await this.inner.write(record, options);
    } catch (error) {
      this.metrics.dropped();
      throw error;
    }
  }
}
