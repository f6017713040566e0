import { it } from "vitest";
import { announcedBefore } from "./pii-detection/context.js";
import { findPii } from "./pii-detection/detect.js";

it("dbg", () => {
  for (const t of [
    "Our support line is 415.555.0176.",
    "The office number is 702-555-0155.",
    "Name: Jane Doe, email jane.doe@example.com, phone (212) 555-0147.",
    "IP was 8.8.4.4.",
  ]) {
    console.log(t, JSON.stringify(findPii(t)), announcedBefore(t, t.search(/[\d(+]/)));
  }
});
