/**
 * Cases the differential harness once found disagreeing, as fast-check shrank them: each runs on
 * every `npm test`. Beside each, what was wrong.
 */
import type { Case } from "./stream-differential.js";

export const REGRESSIONS: Case[] = [
  // A redaction in a tool_use block and in the text block after it: the whole-answer redaction
  // was mapped onto the events by position alone, moving the tool input's text into the text block.
  {
    answer: { kind: "messages", blocks: [{ input: { to: "123-45-6789" } }, { text: "123-45-6789" }], escape: false },
    rendering: { seed: 0, cut: "whole", window: 8 },
  },
  // Two choices under a redaction are asked of the upstream whole and streamed choice after
  // choice: the legacy function_call was left out of that stream.
  {
    answer: {
      kind: "chat",
      choices: [
        { content: "", parts: false, tools: [] },
        { content: "", parts: false, tools: [], legacy: { to: "" } },
      ],
      escape: false,
    },
    rendering: { seed: 0, cut: "whole", window: 8 },
  },
];
