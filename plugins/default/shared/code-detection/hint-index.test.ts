import { describe, expect, it } from "vitest";
import { HintIndex } from "./hint-index.js";

describe("HintIndex", () => {
  it("finds every hint a text contains, overlapping ones included", () => {
    const hints = ["he", "she", "his", "hers", "::", "select"];
    const index = new HintIndex(hints);
    const found = new Uint8Array(hints.length);
    index.search("ushers use std::vector; select", found);
    expect(hints.filter((_, i) => found[i] === 1)).toEqual(["he", "she", "hers", "::", "select"]);
  });

  it("finds nothing in a text without hints", () => {
    const index = new HintIndex(["abc"]);
    const found = new Uint8Array(1);
    index.search("ababab", found);
    expect(found[0]).toBe(0);
  });
});
