import { describe, expect, it } from "vitest";
import { BatchWriter, LogWriteError } from "./batch-writer.js";

describe("BatchWriter", () => {
  it("writes in batches and loses nothing on stop", async () => {
    const written: number[][] = [];
    const writer = new BatchWriter<number>({ write: async (b) => void written.push(b), maxBatch: 10, flushIntervalMs: 1000 });
    for (let i = 0; i < 25; i++) await writer.write(i);
    await writer.stop();
    expect(written.flat()).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect(Math.max(...written.map((b) => b.length))).toBe(10);
    await expect(writer.write(99)).rejects.toThrow(/stopped/);
  });

  it("applies back-pressure when the queue is full instead of dropping", async () => {
    let release: () => void = () => {};
    let barrier = new Promise<void>((resolve) => (release = resolve));
    const written: number[] = [];
    const writer = new BatchWriter<number>({
      write: async (batch) => {
        await barrier;
        written.push(...batch);
      },
      maxBatch: 2,
      capacity: 4,
      flushIntervalMs: 1,
    });
    const accepted: number[] = [];
    const producers = Array.from({ length: 10 }, (_, i) => writer.write(i).then(() => accepted.push(i)));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(accepted.length).toBeLessThanOrEqual(4);
    expect(writer.pending).toBeLessThanOrEqual(4);
    release();
    barrier = Promise.resolve();
    await Promise.all(producers);
    await writer.stop();
    expect(written.sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i));
  });

  it("retries a batch the store refused, and reports the failure", async () => {
    let failures = 2;
    const errors: number[] = [];
    const written: string[] = [];
    const writer = new BatchWriter<string>({
      write: async (batch) => {
        if (failures-- > 0) throw new Error("database is locked");
        written.push(...batch);
      },
      onError: (_e, size) => errors.push(size),
      flushIntervalMs: 1,
    });
    await writer.write("a");
    await writer.write("b");
    await writer.flush();
    expect(written).toEqual(["a", "b"]);
    expect(errors.length).toBe(2);
    await writer.stop();
  });

  it("gives up on stop after repeated failures, saying how many records were not written", async () => {
    const writer = new BatchWriter<string>({
      write: async () => {
        throw new Error("disk full");
      },
      stopAttempts: 2,
      flushIntervalMs: 1_000,
    });
    await writer.write("a");
    const error = await writer.stop().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LogWriteError);
    expect((error as LogWriteError).unwritten).toBe(1);
  });
});
