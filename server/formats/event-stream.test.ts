import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cut, cuttings, PROPERTY_RUNS } from "../../test/support/fragments.js";
import { EventStreamFraming } from "./event-stream.js";

/** A message of the framing: its total length, then bytes up to it (what they hold does not matter here). */
function message(bodyBytes: number, fill: number): Buffer {
  const bytes = Buffer.alloc(16 + bodyBytes, fill);
  bytes.writeUInt32BE(bytes.length, 0);
  return bytes;
}

describe("EventStreamFraming", () => {
  it("counts the messages of a stream however the reads cut it", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: 300 }), fc.nat({ max: 255 })), { maxLength: 12 }),
        cuttings,
        (shapes, cutting) => {
          const bytes = Buffer.concat(shapes.map(([size, fill]) => message(size, fill)));
          const framing = new EventStreamFraming();
          const counted = cut(bytes, cutting).reduce((sum, read) => sum + framing.ends(read), 0);
          expect(counted).toBe(shapes.length);
        },
      ),
      PROPERTY_RUNS,
    );
  });

  it("counts no message while one trickles in", () => {
    const framing = new EventStreamFraming();
    const long = message(1000, 7);
    let counted = 0;
    for (let at = 0; at < long.length - 1; at++) counted += framing.ends(long.subarray(at, at + 1));
    expect(counted).toBe(0);
    expect(framing.ends(long.subarray(long.length - 1))).toBe(1);
  });
});
