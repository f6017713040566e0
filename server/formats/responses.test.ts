import { describe, expect, it } from "vitest";
import { locateText } from "../../core/index.js";
import { reportedUsage } from "../request/usage.js";
import { functionCallItem, messageItem, responseAsEvents, responseObject, responsesUsage } from "./responses-events.js";
import { nextSequence, responses } from "./responses.js";
import { SseSplitter } from "./sse.js";

const answer = responseObject({
  id: "resp_1",
  model: "m",
  createdAt: 1,
  status: "completed",
  output: [
    messageItem("msg_1", ["Looking it up."]),
    functionCallItem("fc_1", "call_1", "lookup", '{"q":"a\\u002db"}'),
    { type: "mcp_call", id: "mcp_1", server_label: "s", name: "t", arguments: '{"x":"y"}', output: "tool said hi" },
  ],
  usage: responsesUsage(11, 13),
});

function streamed(body: Record<string, unknown>) {
  const text = responses.streamText("responses");
  const splitter = new SseSplitter();
  for (const bytes of responseAsEvents(body)) for (const event of splitter.push(bytes)) text.add(event);
  return text;
}

describe("the Responses format", () => {
  it("reports the answer's usage in input_tokens and output_tokens, JSON and streamed", () => {
    expect(reportedUsage(answer)).toEqual({ input_tokens: 11, output_tokens: 13 });
    expect(reportedUsage(streamed(answer).body())).toEqual({ input_tokens: 11, output_tokens: 13 });
  });

  it("reads the same texts from a stream as from the JSON answer", () => {
    const text = streamed(answer);
    expect(text.texts()).toEqual(text.textsOf(answer));
    expect(locateText("output", "responses", text.body()).text).toBe(locateText("output", "responses", answer).text);
    expect(locateText("output", "responses", answer).text).toBe("Looking it up.\na-b\ny\ntool said hi");
    expect(locateText("output", "responses", answer, { toolArguments: false }).text).toBe("Looking it up.\ntool said hi");
  });

  it("ends a stream with an error event the SDKs raise, carrying the denial", () => {
    const event = responses
      .streamError({
        status: 446,
        code: "hooks_failed",
        message: "stopped",
        type: "hooks_failed",
        denial: { side: "output", guardrails: ["g"], checks: ["c"] },
      })
      .toString();
    expect(event.startsWith("event: error\n")).toBe(true);
    const data = JSON.parse(event.slice(event.indexOf("data: ") + 6)) as Record<string, unknown>;
    expect(data).toMatchObject({
      type: "error",
      code: "hooks_failed",
      message: "stopped",
      error: { type: "hooks_failed", guardrails: ["g"] },
    });
  });

  it("numbers its error event one past the last event sent, whatever was held back", () => {
    const events = [...responseAsEvents(answer)];
    const sent = Buffer.concat(events.slice(0, 5));
    const data = (event: Buffer) => JSON.parse(event.toString().split("data: ")[1] as string) as { sequence_number: number };
    const error = responses.streamError({ status: 446, code: "hooks_failed", message: "stopped" }, undefined, sent);
    expect(data(error).sequence_number).toBe(5);
    // A gateway event (the hook_results keepalive) after the last numbered one, and a text quoting the field name.
    const quoted = Buffer.from(`data: ${JSON.stringify({ type: "x", delta: '"sequence_number": 99' })}\n\n`);
    expect(nextSequence(Buffer.concat([sent, responses.hookEvent({ before_request_hooks: [] }), quoted]))).toBe(5);
    // A long last window: the number is found past the tail it is first looked for in.
    const long = Buffer.concat([events[0] as Buffer, Buffer.alloc(70_000, 0x20)]);
    expect(nextSequence(long)).toBe(1);
    expect(nextSequence(undefined)).toBe(0);
  });
});

describe("what the input side of a Responses request reads", () => {
  const request = {
    input: [
      { role: "user", content: "old question" },
      { type: "function_call", call_id: "c0", name: "f", arguments: "{}" },
      { type: "function_call_output", call_id: "c0", output: "old result" },
      { role: "assistant", content: [{ type: "output_text", text: "old answer" }] },
      {
        role: "user",
        content: [
          { type: "input_text", text: "new question" },
          { type: "input_image", image_url: "x" },
        ],
      },
      { type: "function_call", call_id: "c1", name: "f", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: [{ type: "input_text", text: "new result" }] },
    ],
  };

  it("reads every tool result and the user input the model has not answered", () => {
    expect(locateText("input", "responses", request).text).toBe("old result\nnew result");
    const turn = { input: [...request.input, { role: "user", content: "and then?" }] };
    expect(locateText("input", "responses", turn).text).toBe("old result\nnew result\nand then?");
    expect(locateText("input", "responses", { input: "just text" }).text).toBe("just text");
    expect(locateText("input", "responses", { input: [{ role: "user", content: "q" }] }).text).toBe("q");
  });

  it("leaves tool results out for a guardrail with tool_results: false, on every route", () => {
    const turn = { input: [...request.input, { role: "user", content: "and then?" }] };
    expect(locateText("input", "responses", turn, { toolResults: false }).text).toBe("and then?");
    const chat = {
      messages: [
        { role: "assistant", content: null, tool_calls: [] },
        { role: "tool", tool_call_id: "t", content: "tool says" },
        { role: "user", content: "user says" },
      ],
    };
    expect(locateText("input", "chatComplete", chat).text).toBe("tool says\nuser says");
    expect(locateText("input", "chatComplete", chat, { toolResults: false }).text).toBe("user says");
    const messages = {
      messages: [
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t", content: "tool says" },
            { type: "text", text: "user says" },
          ],
        },
      ],
    };
    expect(locateText("input", "messages", messages, { toolResults: false }).text).toBe("user says");
  });
});
