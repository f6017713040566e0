/**
 * Network reads, generated: the ways a socket may cut a stream's bytes (fast-check arbitraries),
 * for property tests of the stream decoders. A cutting is a list of positions; the same bytes cut
 * any way must decode to what the whole bytes decode to.
 */
import fc from "fast-check";

/** The seed and run count of the decoders' property tests: fixed in CI, so a failure repeats. */
export const PROPERTY_RUNS = { seed: 0x5eed_2032, numRuns: 200 } as const;

/** How a stream is cut: at every byte, once at one place, at random places, or in reads of one size. */
export type Cutting =
  { kind: "bytes" } | { kind: "once"; at: number } | { kind: "places"; at: number[] } | { kind: "size"; size: number };

/** Any cutting of a stream (positions are scaled to its length when applied). */
export const cuttings: fc.Arbitrary<Cutting> = fc.oneof(
  fc.constant<Cutting>({ kind: "bytes" }),
  fc.record({ kind: fc.constant("once" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("places" as const), at: fc.array(fc.nat(), { maxLength: 40 }) }),
  fc.record({ kind: fc.constant("size" as const), size: fc.integer({ min: 1, max: 64 }) }),
);

/** The reads `bytes` arrive in under a cutting. */
export function cut(bytes: Buffer, cutting: Cutting): Buffer[] {
  const n = bytes.length;
  let points: number[];
  switch (cutting.kind) {
    case "bytes":
      points = Array.from({ length: n }, (_, i) => i);
      break;
    case "once":
      points = [n ? cutting.at % (n + 1) : 0];
      break;
    case "places":
      points = cutting.at.map((at) => (n ? at % (n + 1) : 0));
      break;
    case "size":
      points = [];
      for (let at = 0; at < n; at += cutting.size) points.push(at);
      break;
  }
  const sorted = [...new Set([0, ...points, n])].sort((a, b) => a - b);
  const reads: Buffer[] = [];
  for (let i = 1; i < sorted.length; i++) reads.push(bytes.subarray(sorted[i - 1], sorted[i]));
  return reads;
}

/** The reads as the async stream a decoder takes. */
export async function* readsOf(reads: Buffer[]): AsyncGenerator<Buffer> {
  for (const read of reads) yield read;
}
