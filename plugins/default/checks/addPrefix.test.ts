import { describe, expect, it } from "vitest";
import type { RequestType } from "../../../index.js";
import { runOnText } from "../../../test/support/check-harness.js";
import addPrefix from "./addPrefix.js";

const run = (request: unknown, parameters: Record<string, unknown>, requestType: RequestType = "chatComplete") =>
  runOnText(addPrefix, undefined, parameters, { request, requestType });

const image = { type: "image_url", image_url: { url: "https://x/y.png" } };

describe("default.addPrefix", () => {
  it("prefixes the last user message and always passes", async () => {
    const request = {
      model: "m",
      messages: [
        { role: "user", content: "first" },
        { role: "assistant", content: "reply" },
        { role: "user", content: "second" },
      ],
    };
    const out = await run(request, { prefix: "P: " });
    expect(out.verdict).toBe(true);
    expect(out.transformedRequest).toEqual({
      model: "m",
      messages: [
        { role: "user", content: "first" },
        { role: "assistant", content: "reply" },
        { role: "user", content: "P: second" },
      ],
    });
    expect(out.data).toMatchObject({
      applied: true,
      action: "prefixed",
      messageIndex: 2,
      applyToRole: "user",
      requestType: "chatComplete",
    });
    expect(request.messages[2]?.content).toBe("second");
  });

  it("prefixes a leading text part, and inserts a text part before a leading image", async () => {
    const textFirst = { messages: [{ role: "user", content: [{ type: "text", text: "look" }, image] }] };
    expect((await run(textFirst, { prefix: "P: " })).transformedRequest).toEqual({
      messages: [{ role: "user", content: [{ type: "text", text: "P: look" }, image] }],
    });
    const imageFirst = { messages: [{ role: "user", content: [image, { type: "text", text: "what is this?" }] }] };
    const out = await run(imageFirst, { prefix: "P: " });
    expect(out.transformedRequest).toEqual({
      messages: [{ role: "user", content: [{ type: "text", text: "P: " }, image, { type: "text", text: "what is this?" }] }],
    });
    expect(out.data?.action).toBe("insertedPart");
  });

  it("prefixes the first system message, or creates one first", async () => {
    const withSystem = {
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
      ],
    };
    expect((await run(withSystem, { prefix: "Rules. ", applyToRole: "system" })).transformedRequest).toEqual({
      messages: [
        { role: "system", content: "Rules. Be brief." },
        { role: "user", content: "hi" },
      ],
    });
    const without = { messages: [{ role: "user", content: "hi" }] };
    const out = await run(without, { prefix: "Rules.", applyToRole: "system" });
    expect(out.transformedRequest).toEqual({
      messages: [
        { role: "system", content: "Rules." },
        { role: "user", content: "hi" },
      ],
    });
    expect(out.data).toMatchObject({ action: "insertedMessage", messageIndex: 0 });
  });

  it("inserts a new message before the target when addToExisting is false", async () => {
    const request = { messages: [{ role: "user", content: "hi" }] };
    const out = await run(request, { prefix: "Context.", addToExisting: false });
    expect(out.transformedRequest).toEqual({
      messages: [
        { role: "user", content: "Context." },
        { role: "user", content: "hi" },
      ],
    });
  });

  it("appends a message for a role that has none", async () => {
    const request = { messages: [{ role: "user", content: "hi" }] };
    expect((await run(request, { prefix: "Sure:", applyToRole: "assistant" })).transformedRequest).toEqual({
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "Sure:" },
      ],
    });
  });

  it("onlyIfEmpty: skips a role that has text, fills one that has none or is blank", async () => {
    const withSystem = {
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
      ],
    };
    const skipped = await run(withSystem, { prefix: "X", applyToRole: "system", onlyIfEmpty: true });
    expect(skipped.transformedRequest).toBeUndefined();
    expect(skipped.data).toMatchObject({ applied: false, action: "skipped" });
    expect(skipped.data?.explanation).toMatch(/not empty/);
    const blank = {
      messages: [
        { role: "system", content: "  " },
        { role: "user", content: "hi" },
      ],
    };
    expect((await run(blank, { prefix: "X", applyToRole: "system", onlyIfEmpty: true })).transformedRequest).toEqual({
      messages: [
        { role: "system", content: "X  " },
        { role: "user", content: "hi" },
      ],
    });
  });

  it("Messages API: system means the top-level system field, as a string or blocks", async () => {
    const none = { model: "claude", messages: [{ role: "user", content: "hi" }] };
    expect((await run(none, { prefix: "Rules.", applyToRole: "system" }, "messages")).transformedRequest).toEqual({
      model: "claude",
      system: "Rules.",
      messages: [{ role: "user", content: "hi" }],
    });
    const text = { system: "Be brief.", messages: [{ role: "user", content: "hi" }] };
    expect((await run(text, { prefix: "Rules. ", applyToRole: "system" }, "messages")).transformedRequest).toEqual({
      system: "Rules. Be brief.",
      messages: [{ role: "user", content: "hi" }],
    });
    const blocks = { system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }], messages: [] };
    expect((await run(blocks, { prefix: "Rules. ", applyToRole: "system" }, "messages")).transformedRequest).toEqual({
      system: [{ type: "text", text: "Rules. Be brief.", cache_control: { type: "ephemeral" } }],
      messages: [],
    });
    expect(
      (await run(blocks, { prefix: "Rules.", applyToRole: "system", addToExisting: false }, "messages")).transformedRequest,
    ).toEqual({
      system: [
        { type: "text", text: "Rules." },
        { type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } },
      ],
      messages: [],
    });
  });

  it("Messages API: an image-first user message gets a text block in front", async () => {
    const img = { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } };
    const request = { messages: [{ role: "user", content: [img] }] };
    expect((await run(request, { prefix: "Describe: " }, "messages")).transformedRequest).toEqual({
      messages: [{ role: "user", content: [{ type: "text", text: "Describe: " }, img] }],
    });
  });

  it("completions: prefixes the prompt string, or each prompt of a list, leaving token arrays alone", async () => {
    expect((await run({ prompt: "Once" }, { prefix: "P: " }, "complete")).transformedRequest).toEqual({ prompt: "P: Once" });
    expect((await run({ prompt: ["a", [1, 2], "b"] }, { prefix: "P: " }, "complete")).transformedRequest).toEqual({
      prompt: ["P: a", [1, 2], "P: b"],
    });
    const tokens = await run({ prompt: [[1, 2]] }, { prefix: "P: " }, "complete");
    expect(tokens.transformedRequest).toBeUndefined();
    expect(tokens.data?.applied).toBe(false);
  });

  it("embeddings: prefixes each input", async () => {
    expect((await run({ input: ["cats", "dogs"] }, { prefix: "query: " }, "embed")).transformedRequest).toEqual({
      input: ["query: cats", "query: dogs"],
    });
    expect((await run({ input: "cats" }, { prefix: "query: " }, "embed")).transformedRequest).toEqual({ input: "query: cats" });
  });

  it("reports a request it cannot change, and passes", async () => {
    const out = await run({ model: "m" }, { prefix: "P" });
    expect(out.verdict).toBe(true);
    expect(out.data).toMatchObject({ applied: false, action: "notApplicable" });
    expect(out.transformedRequest).toBeUndefined();
  });

  it("adds the prefix to an empty message (empty text is content, not an error)", async () => {
    const out = await run({ messages: [{ role: "user", content: "" }] }, { prefix: "P" });
    expect(out.transformedRequest).toEqual({ messages: [{ role: "user", content: "P" }] });
  });

  it("supports the input side only and requires a prefix", async () => {
    expect(addPrefix.sides).toEqual(["input"]);
    await expect(run({ messages: [] }, {})).rejects.toThrow(/prefix/);
    await expect(run({ messages: [] }, { prefix: "p", applyToRole: "tool" })).rejects.toThrow();
  });
});
