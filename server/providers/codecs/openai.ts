/**
 * The OpenAI chat format is the form every translation goes through, so its codec only writes:
 * the request and the answer are already OpenAI chat objects, and chunks become `data:` events
 * ending with `[DONE]`. A stream reports usage only when the client asked for it, as OpenAI does.
 */
import type { ClientCodec } from "./codec.js";
import type { Json } from "../kind.js";

function usageAsked(body: Json): boolean {
  return (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
}

export const openAiCodec: ClientCodec = {
  toChat: (body) => body,
  fromChat: (completion) => completion,
  async *streamFromChat(chunks, body) {
    const withUsage = usageAsked(body);
    for await (const chunk of chunks) {
      if (!withUsage && chunk.usage !== undefined) {
        const choices = chunk.choices as unknown[] | undefined;
        // The usage chunk of the OpenAI API has no choices; a chunk carrying both keeps its choices.
        if (!choices || choices.length === 0) continue;
        const { usage: _usage, ...rest } = chunk;
        yield Buffer.from(`data: ${JSON.stringify(rest)}\n\n`);
        continue;
      }
      yield Buffer.from(`data: ${JSON.stringify(chunk)}\n\n`);
    }
    yield Buffer.from("data: [DONE]\n\n");
  },
};
