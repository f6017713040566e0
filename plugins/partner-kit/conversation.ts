/**
 * The request's messages as plain `{role, content}` pairs, the form several partner services take
 * a conversation in: text parts joined, other parts (images, tool calls) left out. A request
 * without messages (completions, embeddings) becomes one user message holding its text.
 */
import { locateText, type CheckContext } from "../../core/index.js";

/** One message as the services read it. */
export interface PlainMessage {
  role: string;
  content: string;
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part): part is { type: "text"; text: string } => part?.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");
}

/** The conversation of the request in `context`, system prompt (Anthropic `system`) first. */
export function plainMessages(context: Pick<CheckContext, "request" | "requestType">): PlainMessage[] {
  const body = context.request as { messages?: unknown; system?: unknown } | undefined;
  if (!Array.isArray(body?.messages)) {
    return [{ role: "user", content: locateText("input", context.requestType, context.request).text }];
  }
  const messages: PlainMessage[] = [];
  const system = contentText(body.system);
  if (system) messages.push({ role: "system", content: system });
  for (const message of body.messages as Array<{ role?: unknown; content?: unknown }>) {
    messages.push({ role: typeof message?.role === "string" ? message.role : "user", content: contentText(message?.content) });
  }
  return messages;
}
