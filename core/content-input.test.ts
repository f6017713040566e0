import { describe, expect, it } from "vitest";
import { locateText, tokenIdInput, writeText } from "./content.js";

const SSN = "123-45-6789";

describe("the input side reads every message of the last turn", () => {
  it("chat: every tool result sent after the assistant's tool calls, and the user text after them", () => {
    const body = {
      messages: [
        { role: "system", content: "be nice" },
        { role: "user", content: "earlier question" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "a", content: `first result ${SSN}` },
        { role: "tool", tool_call_id: "b", content: [{ type: "text", text: "second result" }] },
        { role: "user", content: "now summarise" },
      ],
    };
    const located = locateText("input", "chatComplete", body);
    expect(located.text).toBe(`first result ${SSN}\nsecond result\nnow summarise`);
    expect(located.slots.map((s) => s.path)).toEqual([
      ["messages", 3, "content"],
      ["messages", 4, "content", 0, "text"],
      ["messages", 5, "content"],
    ]);
  });

  it("chat: a legacy function message is read like a tool message", () => {
    const body = {
      messages: [
        { role: "assistant", content: null, function_call: { name: "f", arguments: "{}" } },
        { role: "function", name: "f", content: SSN },
      ],
    };
    expect(locateText("input", "chatComplete", body).text).toBe(SSN);
  });

  it("the turn stops at the last assistant message and at system or developer messages", () => {
    const body = {
      messages: [
        { role: "user", content: "old" },
        { role: "assistant", content: "answer" },
        { role: "developer", content: "rules" },
        { role: "user", content: "new" },
      ],
    };
    expect(locateText("input", "chatComplete", body).text).toBe("new");
  });

  it("an assistant prefill is read with the user message it follows", () => {
    const body = {
      messages: [
        { role: "user", content: "old" },
        { role: "assistant", content: "answer" },
        { role: "user", content: "question" },
        { role: "assistant", content: "Sure:" },
      ],
    };
    expect(locateText("input", "messages", body).text).toBe("question\nSure:");
  });

  it("chat: text inside a part of any type is read", () => {
    const body = { messages: [{ role: "user", content: [{ type: "input_text", text: SSN }] }] };
    expect(locateText("input", "chatComplete", body).text).toBe(SSN);
  });
});

describe("the input side reads every block that carries text", () => {
  const toolResults = {
    messages: [
      { role: "user", content: "look it up" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "lookup", input: { q: "x" } }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: `plain ${SSN}` },
          {
            type: "tool_result",
            tool_use_id: "t2",
            content: [
              { type: "text", text: "block text" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
              { type: "document", source: { type: "text", media_type: "text/plain", data: "doc in result" } },
            ],
          },
        ],
      },
    ],
  };

  it("messages: tool_result content as a string or as blocks, documents inside included", () => {
    const located = locateText("input", "messages", toolResults);
    expect(located.text).toBe(`plain ${SSN}\nblock text\ndoc in result`);
    expect(located.slots.map((s) => s.path)).toEqual([
      ["messages", 2, "content", 0, "content"],
      ["messages", 2, "content", 1, "content", 0, "text"],
      ["messages", 2, "content", 1, "content", 2, "source", "data"],
    ]);
  });

  it("messages: a redaction is written back in place, blocks and images kept", () => {
    const frozen = structuredClone(toolResults);
    const located = locateText("input", "messages", toolResults);
    const out = writeText(toolResults, located, located.text.replace(SSN, "[SSN]")) as typeof toolResults;
    const blocks = out.messages[2]?.content as Array<Record<string, unknown>>;
    expect(blocks[0]).toEqual({ type: "tool_result", tool_use_id: "t1", content: "plain [SSN]" });
    expect(blocks[1]).toEqual((frozen.messages[2]?.content as unknown[])[1]);
    expect(toolResults).toEqual(frozen);
  });

  it("messages: a document's text source, its content source, its title and context", () => {
    const body = {
      messages: [
        {
          role: "user",
          content: [
            {
              type: "document",
              title: "notes",
              context: "from the wiki",
              source: { type: "text", media_type: "text/plain", data: `doc ${SSN}` },
            },
            {
              type: "document",
              source: {
                type: "content",
                content: [
                  { type: "text", text: "chunk one" },
                  { type: "text", text: "chunk two" },
                ],
              },
            },
            { type: "document", source: { type: "content", content: "chunk as a string" } },
            { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } },
            {
              type: "search_result",
              title: "result title",
              source: "https://x",
              content: [{ type: "text", text: "result text" }],
            },
            { type: "text", text: "question" },
          ],
        },
      ],
    };
    const located = locateText("input", "messages", body);
    expect(located.text).toBe(
      `notes\nfrom the wiki\ndoc ${SSN}\nchunk one\nchunk two\nchunk as a string\nresult title\nresult text\nquestion`,
    );
    const out = writeText(body, located, located.text.replace(SSN, "[SSN]")) as typeof body;
    const first = (out.messages[0]?.content as Array<{ source: { data: string } }>)[0];
    expect(first?.source.data).toBe("doc [SSN]");
  });
});

describe("token-id input", () => {
  it("is found in completions prompts and embedding inputs", () => {
    expect(tokenIdInput("complete", { prompt: [1, 2, 3] })).toBe("prompt");
    expect(tokenIdInput("complete", { prompt: [[1, 2], [3]] })).toBe("prompt");
    expect(tokenIdInput("complete", { prompt: ["text", [1, 2]] })).toBe("prompt");
    expect(tokenIdInput("embed", { input: [5, 6] })).toBe("input");
    expect(tokenIdInput("embed", { input: [[5, 6]] })).toBe("input");
  });

  it("is not found in text", () => {
    expect(tokenIdInput("complete", { prompt: "text" })).toBeUndefined();
    expect(tokenIdInput("complete", { prompt: ["a", "b"] })).toBeUndefined();
    expect(tokenIdInput("embed", { input: "x" })).toBeUndefined();
    expect(tokenIdInput("chatComplete", { messages: [{ role: "user", content: "x" }] })).toBeUndefined();
  });
});
