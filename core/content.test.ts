import { describe, expect, it } from "vitest";
import { locateText, splitOverSlots, writeText } from "./content.js";

const image = { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } };

describe("locateText on the input side evaluates only the last turn", () => {
  it("chat completions with string content", () => {
    const body = {
      messages: [
        { role: "system", content: "be nice" },
        { role: "user", content: "first" },
        { role: "assistant", content: "answered" },
        { role: "user", content: "last one" },
      ],
    };
    expect(locateText("input", "chatComplete", body).text).toBe("last one");
  });

  it("chat completions with content parts: text parts joined, other parts skipped", () => {
    const body = {
      messages: [
        { role: "user", content: "earlier" },
        { role: "assistant", content: "answered" },
        { role: "user", content: [{ type: "text", text: "look at" }, image, { type: "text", text: "this" }] },
      ],
    };
    const located = locateText("input", "chatComplete", body);
    expect(located.text).toBe("look at\nthis");
    expect(located.slots.map((s) => s.path)).toEqual([
      ["messages", 2, "content", 0, "text"],
      ["messages", 2, "content", 2, "text"],
    ]);
  });

  it("completions with a prompt string or array", () => {
    expect(locateText("input", "complete", { prompt: "write a poem" }).text).toBe("write a poem");
    expect(locateText("input", "complete", { prompt: ["a", "b"] }).text).toBe("a\nb");
    expect(locateText("input", "complete", { prompt: [1, 2, 3] }).text).toBe("");
  });

  it("embeddings with an input string or array", () => {
    expect(locateText("input", "embed", { input: "embed me" }).text).toBe("embed me");
    expect(locateText("input", "embed", { input: ["x", "y"] }).text).toBe("x\ny");
  });

  it("messages with string content or content blocks", () => {
    expect(locateText("input", "messages", { messages: [{ role: "user", content: "hi" }] }).text).toBe("hi");
    const blocks = {
      messages: [
        { role: "user", content: "old" },
        { role: "assistant", content: "answered" },
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
            { type: "text", text: "describe" },
          ],
        },
      ],
    };
    expect(locateText("input", "messages", blocks).text).toBe("describe");
  });

  it("a body without messages has empty text", () => {
    expect(locateText("input", "chatComplete", { messages: [] }).text).toBe("");
    expect(locateText("input", "chatComplete", "not an object").text).toBe("");
  });
});

describe("locateText on the output side", () => {
  it("reads every choice of chat and completions, each a part of the text", () => {
    const chat = {
      choices: [
        { index: 0, message: { role: "assistant", content: "first" } },
        { index: 1, message: { role: "assistant", content: "second" } },
      ],
    };
    expect(locateText("output", "chatComplete", chat).text).toBe("first\nsecond");
    expect(locateText("output", "complete", { choices: [{ text: "done" }, { text: "again" }] }).text).toBe("done\nagain");
  });

  it("reads tool-call arguments after a choice's content, unless told to leave them out", () => {
    const chat = {
      choices: [
        {
          message: {
            content: "calling",
            tool_calls: [{ function: { name: "a", arguments: '{"x":"one"}' } }, { function: { name: "b", arguments: "{}" } }],
            function_call: { name: "c", arguments: '{"y":2}' },
          },
        },
      ],
    };
    const located = locateText("output", "chatComplete", chat);
    // Arguments are read as the application reads them: the string values of their JSON.
    expect(located.text).toBe("calling\none");
    expect(located.slots[1]?.path).toEqual(["choices", 0, "message", "tool_calls", 0, "function", "arguments"]);
    expect(locateText("output", "chatComplete", chat, { toolArguments: false }).text).toBe("calling");
  });

  it("reads the text blocks of a messages response and the strings inside tool_use input", () => {
    const response = {
      content: [
        { type: "text", text: "Let me check." },
        {
          type: "tool_use",
          id: "t1",
          name: "lookup",
          input: { query: "weather", where: { city: "Oslo" }, days: 3, tags: ["a"] },
        },
        { type: "text", text: "Done." },
      ],
    };
    const located = locateText("output", "messages", response);
    expect(located.text).toBe("Let me check.\nweather\nOslo\na\nDone.");
    expect(located.slots[2]?.path).toEqual(["content", 1, "input", "where", "city"]);
    expect(locateText("output", "messages", response, { toolArguments: false }).text).toBe("Let me check.\nDone.");
    const written = writeText(response, located, "Let me check.\nweather\n[CITY]\na\nDone.") as typeof response;
    expect(written.content[1]).toEqual({
      ...response.content[1],
      input: { query: "weather", where: { city: "[CITY]" }, days: 3, tags: ["a"] },
    });
  });

  it("a tool-call-only chat response has empty text", () => {
    const response = { choices: [{ message: { role: "assistant", content: null, tool_calls: [{ id: "c" }] } }] };
    expect(locateText("output", "chatComplete", response).text).toBe("");
  });
});

describe("writeText keeps the body's shape and never mutates the caller's body", () => {
  it("chat string content", () => {
    const body = { model: "m", messages: [{ role: "user", content: "my ssn is 123" }], extra: { kept: true } };
    const frozen = structuredClone(body);
    const out = writeText(body, locateText("input", "chatComplete", body), "my ssn is [X]") as typeof body;
    expect(out.messages[0]?.content).toBe("my ssn is [X]");
    expect(out.extra).toEqual({ kept: true });
    expect(body).toEqual(frozen);
  });

  it("chat content parts stay parts, the image untouched", () => {
    const body = {
      messages: [{ role: "user", content: [{ type: "text", text: "call 555" }, image, { type: "text", text: "or 777" }] }],
    };
    const frozen = structuredClone(body);
    const out = writeText(body, locateText("input", "chatComplete", body), "call [X]\nor [X]") as typeof body;
    expect(out.messages[0]?.content).toEqual([{ type: "text", text: "call [X]" }, image, { type: "text", text: "or [X]" }]);
    expect(body).toEqual(frozen);
  });

  it("completions prompt arrays stay arrays", () => {
    const body = { prompt: ["secret one", "plain two"] };
    const out = writeText(body, locateText("input", "complete", body), "[X] one\nplain two") as typeof body;
    expect(out.prompt).toEqual(["[X] one", "plain two"]);
  });

  it("messages blocks stay blocks on the input and the output side", () => {
    const request = { messages: [{ role: "user", content: [{ type: "text", text: "hello bob" }] }] };
    const out = writeText(request, locateText("input", "messages", request), "hello [X]") as typeof request;
    expect(out.messages[0]?.content).toEqual([{ type: "text", text: "hello [X]" }]);

    const response = {
      id: "msg",
      content: [
        { type: "text", text: "a" },
        { type: "tool_use", id: "t" },
        { type: "text", text: "bob" },
      ],
    };
    const outResponse = writeText(response, locateText("output", "messages", response), "a\n[X]") as typeof response;
    expect(outResponse.content).toEqual([
      { type: "text", text: "a" },
      { type: "tool_use", id: "t" },
      { type: "text", text: "[X]" },
    ]);
  });

  it("chat and completions responses", () => {
    const chat = {
      choices: [
        { index: 0, message: { role: "assistant", content: "bob" } },
        { index: 1, message: { content: "bob" } },
      ],
    };
    const out = writeText(chat, locateText("output", "chatComplete", chat), "bob\n[X]") as typeof chat;
    expect(out.choices.map((c) => c.message.content)).toEqual(["bob", "[X]"]);
    const completion = { choices: [{ text: "bob" }] };
    expect((writeText(completion, locateText("output", "complete", completion), "") as typeof completion).choices[0]?.text).toBe(
      "",
    );
  });

  it("may set an empty string", () => {
    const body = { messages: [{ role: "user", content: "remove all" }] };
    const out = writeText(body, locateText("input", "chatComplete", body), "") as typeof body;
    expect(out.messages[0]?.content).toBe("");
  });

  it("returns the body itself when nothing changed", () => {
    const body = { messages: [{ role: "user", content: "same" }] };
    expect(writeText(body, locateText("input", "chatComplete", body), "same")).toBe(body);
  });
});

describe("splitOverSlots maps edits back to the parts they were made in", () => {
  const slots = (...texts: string[]) => texts.map((text, i) => ({ path: [i], text }));
  it("keeps edits inside their part and never removes a separator", () => {
    expect(splitOverSlots(slots("ab", "cd", "ef"), "ab\ncd\nef", "aXb\ncd\nEF")).toEqual(["aXb", "cd", "EF"]);
    expect(splitOverSlots(slots("ab", "cd"), "ab\ncd", "abcd")).toEqual(["ab", "cd"]);
    expect(splitOverSlots(slots("ab", "cd"), "ab\ncd", "")).toEqual(["", ""]);
  });
});

describe("splitOverSlots stays linear on long texts", () => {
  const slots = (...texts: string[]) => texts.map((text, i) => ({ path: [i], text }));
  it("maps many scattered redactions in 200 KB of parts line by line", () => {
    const part = "call 555-0100 now ".repeat(6_000);
    const original = [part, part].join("\n");
    const transformed = original.replaceAll("555-0100", "[PHONE]");
    const started = performance.now();
    const out = splitOverSlots(slots(part, part), original, transformed);
    expect(out).toEqual([part.replaceAll("555-0100", "[PHONE]"), part.replaceAll("555-0100", "[PHONE]")]);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("maps a change of line count through the diff, or whole into one part when it is long", () => {
    expect(splitOverSlots(slots("a\nb", "c"), "a\nb\nc", "ab\nc")).toEqual(["ab", "c"]);
    const long = "x\n".repeat(30_000);
    const out = splitOverSlots(slots(long, "tail"), `${long}\ntail`, "gone\ntail");
    expect(out.join("\n")).toBe("gone\ntail");
  });
});

describe("tool-call arguments, decoded", () => {
  const answer = (args: string) => ({
    choices: [{ message: { content: null, tool_calls: [{ function: { name: "send", arguments: args } }] } }],
  });

  it("reads the values the application's JSON.parse gives, and writes a change back into the arguments' JSON", () => {
    const args = '{"to": "hr", "body": "number 123\\u002d45\\u002d6789"}';
    const located = locateText("output", "chatComplete", answer(args));
    expect(located.text).toBe("hr\nnumber 123-45-6789");
    const written = writeText(answer(args), located, "hr\nnumber [SSN]") as ReturnType<typeof answer>;
    expect(written.choices[0]?.message.tool_calls[0]?.function.arguments).toBe('{"to": "hr", "body": "number [SSN]"}');
  });

  it("reads arguments that are not JSON as they are", () => {
    expect(locateText("output", "chatComplete", answer('{"cut": "of')).text).toBe('{"cut": "of');
  });
});
