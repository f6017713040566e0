/**
 * A test plugin: `test.redactDigits` transforms (digits become `[NUMBER]`), `test.gated` waits
 * until the test opens its gate and then fails (to show asynchronous guardrails never hold an
 * answer), `test.throws` errors.
 */
import { compileRegex, definePlugin, replaceMatches } from "../../index.js";

const gates = new Map<string, { promise: Promise<void>; open: () => void }>();

function gate(name: string) {
  let entry = gates.get(name);
  if (!entry) {
    let open = () => {};
    const promise = new Promise<void>((resolve) => {
      open = resolve;
    });
    entry = { promise, open };
    gates.set(name, entry);
  }
  return entry;
}

/** Lets every `test.gated` check waiting on `name` finish. */
export function openGate(name: string): void {
  gate(name).open();
}

export default definePlugin({
  id: "test",
  class: "custom",
  apiVersion: 1,
  checks: [
    {
      id: "redactDigits",
      description: "Replaces runs of digits with [NUMBER].",
      sides: ["input", "output"],
      transforms: true,
      parameters: { type: "object", properties: {}, additionalProperties: false },
      run({ text }) {
        const redacted = replaceMatches(compileRegex("\\d+", "g"), text, "[NUMBER]");
        return { verdict: true, data: { changed: redacted !== text }, transformedText: redacted };
      },
    },
    {
      id: "gated",
      description: "Waits for its gate to open, then fails.",
      sides: ["input", "output"],
      kind: "network",
      parameters: { type: "object", properties: { gate: { type: "string" } }, required: ["gate"], additionalProperties: false },
      async run(_context, parameters) {
        await gate((parameters as { gate: string }).gate).promise;
        return { verdict: false, data: { gate: (parameters as { gate: string }).gate } };
      },
    },
    {
      id: "throws",
      description: "Throws; a check error.",
      sides: ["input", "output"],
      parameters: { type: "object", properties: {}, additionalProperties: false },
      run() {
        throw new Error("this check always throws");
      },
    },
  ],
});
