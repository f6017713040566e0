/**
 * What a client rebuilds from an answer, the way the official SDKs do: per choice (or per content
 * block of a message) its text, its tool calls' arguments and its legacy function_call's, from a
 * JSON body or from the server-sent events of a stream, and whether a stream ended with an error
 * event. Tests compare a streamed answer with its JSON twin through this one reader.
 */

/** The texts of one choice (a message has one). Arguments as the application reads them: decoded when JSON. */
export interface RebuiltChoice {
  content: string;
  tools: string[];
  legacy?: string;
}

/** What a client holds once an answer is read. */
export interface Rebuilt {
  choices: Map<number, RebuiltChoice>;
  /** A stream ended with an error event (a deny after text left, a broken upstream). */
  error?: string;
  /** A stream whose terminal event arrived (`[DONE]`, `message_stop`, `response.completed`). */
  completed?: boolean;
  /** The output guardrails' verdicts the answer's last `hook_results` reported (read where the format carries them). */
  verdicts?: boolean[];
  /** A Responses stream whose done events or closing response say other than its deltas did. */
  inconsistent?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => Boolean(v) && typeof v === "object" && !Array.isArray(v);

/** Arguments as the application reads them: the parsed value re-serialised, or the raw text when it is not JSON. */
export function readArguments(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw));
  } catch {
    return raw;
  }
}

function choiceOf(choices: Map<number, RebuiltChoice>, index: number): RebuiltChoice {
  let choice = choices.get(index);
  if (!choice) {
    choice = { content: "", tools: [] };
    choices.set(index, choice);
  }
  return choice;
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (isObj(p) && p.type === "text" && typeof p.text === "string" ? p.text : "")).join("");
}

/** Finishes a rebuilt answer: arguments decoded as the application reads them. */
function decoded(choices: Map<number, RebuiltChoice>): Map<number, RebuiltChoice> {
  for (const choice of choices.values()) {
    choice.tools = choice.tools.map(readArguments);
    if (choice.legacy !== undefined) choice.legacy = readArguments(choice.legacy);
  }
  return choices;
}

/** A Responses output item's texts: its output_text parts (joined by newlines) or a function call's arguments. */
function responsesItem(choices: Map<number, RebuiltChoice>, index: number, item: Obj): void {
  const choice = choiceOf(choices, index);
  if (item.type === "function_call") choice.tools.push(String(item.arguments ?? ""));
  if (item.type !== "message" || !Array.isArray(item.content)) return;
  const parts = (item.content as unknown[]).filter((p): p is Obj => isObj(p) && p.type === "output_text");
  choice.content = parts.map((part) => String(part.text ?? "")).join("\n");
}

/** The rebuilt answer of a non-streamed chat or text completion, message, or Responses response object (one choice per output item). */
export function rebuildJson(body: unknown): Rebuilt {
  const choices = new Map<number, RebuiltChoice>();
  if (isObj(body) && body.object === "response" && Array.isArray(body.output)) {
    (body.output as unknown[]).forEach((item, index) => isObj(item) && responsesItem(choices, index, item));
    return { choices: decoded(choices) };
  }
  if (isObj(body) && Array.isArray(body.content)) {
    const choice = choiceOf(choices, 0);
    for (const block of body.content as unknown[]) {
      if (!isObj(block)) continue;
      if (block.type === "text") choice.content += `${choice.content ? "\n" : ""}${String(block.text)}`;
      if (block.type === "tool_use") choice.tools.push(JSON.stringify(block.input));
    }
    return { choices: decoded(choices) };
  }
  const list = isObj(body) && Array.isArray(body.choices) ? (body.choices as unknown[]) : [];
  list.forEach((c, position) => {
    if (!isObj(c)) return;
    const choice = choiceOf(choices, typeof c.index === "number" ? c.index : position);
    if (typeof c.text === "string") choice.content = c.text;
    const message = isObj(c.message) ? c.message : {};
    choice.content += contentText(message.content);
    for (const call of Array.isArray(message.tool_calls) ? (message.tool_calls as unknown[]) : [])
      if (isObj(call) && isObj(call.function)) choice.tools.push(String(call.function.arguments ?? ""));
    if (isObj(message.function_call)) choice.legacy = String(message.function_call.arguments ?? "");
  });
  return { choices: decoded(choices) };
}

/** The data and event name of each server-sent event of a stream's text. */
function events(text: string): Array<{ event?: string; data: string }> {
  const out: Array<{ event?: string; data: string }> = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length) out.push(event === undefined ? { data: data.join("\n") } : { event, data: data.join("\n") });
  }
  return out;
}

/** The rebuilt answer of an OpenAI stream (chat or completions): everything up to `[DONE]`. */
export function rebuildOpenAiStream(text: string): Rebuilt {
  const choices = new Map<number, RebuiltChoice>();
  const rebuilt: Rebuilt = { choices };
  const tools = new Map<number, Map<number, string>>();
  for (const { data } of events(text)) {
    if (data.trim() === "[DONE]") {
      rebuilt.completed = true;
      break;
    }
    const chunk = JSON.parse(data) as Obj;
    if (chunk.error) {
      rebuilt.error = JSON.stringify(chunk.error);
      break;
    }
    for (const c of Array.isArray(chunk.choices) ? (chunk.choices as unknown[]) : []) {
      if (!isObj(c)) continue;
      const index = typeof c.index === "number" ? c.index : 0;
      const choice = choiceOf(choices, index);
      if (typeof c.text === "string") choice.content += c.text;
      const delta = isObj(c.delta) ? c.delta : {};
      choice.content += contentText(delta.content);
      for (const call of Array.isArray(delta.tool_calls) ? (delta.tool_calls as unknown[]) : []) {
        if (!isObj(call)) continue;
        const calls = tools.get(index) ?? new Map<number, string>();
        const k = typeof call.index === "number" ? call.index : 0;
        const args = isObj(call.function) && typeof call.function.arguments === "string" ? call.function.arguments : "";
        calls.set(k, (calls.get(k) ?? "") + args);
        tools.set(index, calls);
      }
      if (isObj(delta.function_call)) {
        const args = typeof delta.function_call.arguments === "string" ? delta.function_call.arguments : "";
        choice.legacy = (choice.legacy ?? "") + args;
      }
    }
  }
  for (const [index, calls] of tools) {
    choiceOf(choices, index).tools = [...calls.entries()].sort(([a], [b]) => a - b).map(([, args]) => args);
  }
  decoded(choices);
  return rebuilt;
}

/** The rebuilt answer of an Anthropic stream: every block, from its start and its deltas, whatever follows `message_stop`. */
export function rebuildAnthropicStream(text: string): Rebuilt {
  const choices = new Map<number, RebuiltChoice>();
  const rebuilt: Rebuilt = { choices };
  const blocks = new Map<number, { type: string; text: string }>();
  for (const { event, data } of events(text)) {
    const payload = JSON.parse(data) as Obj;
    if (event === "error" || payload.type === "error") {
      rebuilt.error = JSON.stringify(payload.error);
      break;
    }
    if (event === "message_stop") rebuilt.completed = true;
    const index = typeof payload.index === "number" ? payload.index : 0;
    if (payload.type === "content_block_start" && isObj(payload.content_block)) {
      const block = payload.content_block;
      if (block.type === "text") blocks.set(index, { type: "text", text: String(block.text ?? "") });
      if (block.type === "tool_use") {
        const input = isObj(block.input) && Object.keys(block.input).length ? JSON.stringify(block.input) : "";
        blocks.set(index, { type: "tool_use", text: input });
      }
    }
    if (payload.type === "content_block_delta" && isObj(payload.delta)) {
      const block = blocks.get(index);
      if (!block) continue;
      if (payload.delta.type === "text_delta") block.text += String(payload.delta.text ?? "");
      if (payload.delta.type === "input_json_delta") block.text += String(payload.delta.partial_json ?? "");
    }
  }
  const choice = choiceOf(choices, 0);
  for (const [, block] of [...blocks.entries()].sort(([a], [b]) => a - b)) {
    if (block.type === "text") choice.content += `${choice.content ? "\n" : ""}${block.text}`;
    else choice.tools.push(block.text || "{}");
  }
  decoded(choices);
  return rebuilt;
}

/**
 * The rebuilt answer of a Responses stream, as the openai client accumulates it: one choice per
 * output item, from its deltas; the done events and the closing response must repeat those texts,
 * and `sequence_number` must run on without a gap (else `inconsistent` says where);
 * `hook_results` events give the verdicts.
 */
export function rebuildResponsesStream(text: string): Rebuilt {
  const rebuilt: Rebuilt = { choices: new Map() };
  const items = new Map<number, { type: string; parts: string[]; args: string }>();
  const mismatch = (what: string) => (rebuilt.inconsistent ??= what);
  let sequence = -1;
  for (const { event, data } of events(text)) {
    const payload = JSON.parse(data) as Obj;
    const type = payload.type ?? event;
    // Numbered events (the gateway's keepalives are not) run on without a gap, the error event included.
    if (typeof payload.sequence_number === "number") {
      if (payload.sequence_number !== sequence + 1)
        mismatch(`${String(type)} numbered ${payload.sequence_number} after ${sequence}`);
      sequence = payload.sequence_number;
    }
    const hooks = isObj(payload.hook_results) ? payload.hook_results : undefined;
    if (hooks && Array.isArray(hooks.after_request_hooks))
      rebuilt.verdicts = (hooks.after_request_hooks as unknown[]).map((r) => isObj(r) && r.verdict === true);
    if (type === "error" || type === "response.failed") {
      rebuilt.error = JSON.stringify(payload.error ?? (isObj(payload.response) ? payload.response.error : payload));
      break;
    }
    const index = typeof payload.output_index === "number" ? payload.output_index : 0;
    const item = items.get(index);
    const part = typeof payload.content_index === "number" ? payload.content_index : 0;
    if (type === "response.output_item.added" && isObj(payload.item)) {
      items.set(index, { type: String(payload.item.type), parts: [], args: String(payload.item.arguments ?? "") });
    } else if (type === "response.content_part.added" && item) {
      item.parts[part] = "";
    } else if (type === "response.output_text.delta" && item) {
      item.parts[part] = (item.parts[part] ?? "") + String(payload.delta ?? "");
    } else if (type === "response.output_text.done" && item && payload.text !== item.parts[part]) {
      mismatch(
        `output_text.done of item ${index} part ${part}: ${JSON.stringify(payload.text)}, deltas ${JSON.stringify(item.parts[part])}`,
      );
    } else if (type === "response.function_call_arguments.delta" && item) {
      item.args += String(payload.delta ?? "");
    } else if (type === "response.function_call_arguments.done" && item && payload.arguments !== item.args) {
      mismatch(
        `function_call_arguments.done of item ${index}: ${JSON.stringify(payload.arguments)}, deltas ${JSON.stringify(item.args)}`,
      );
    } else if (type === "response.completed" && isObj(payload.response)) {
      rebuilt.completed = true;
      const closing = JSON.stringify([...rebuildJson(payload.response).choices.entries()]);
      if (closing !== JSON.stringify([...streamedChoices(items).entries()])) mismatch(`response.completed says ${closing}`);
    }
  }
  rebuilt.choices = streamedChoices(items);
  return rebuilt;
}

/** The choices of a Responses stream's items as their deltas built them. */
function streamedChoices(items: Map<number, { type: string; parts: string[]; args: string }>): Map<number, RebuiltChoice> {
  const choices = new Map<number, RebuiltChoice>();
  for (const [index, it] of [...items.entries()].sort(([a], [b]) => a - b)) {
    const choice = choiceOf(choices, index);
    if (it.type === "function_call") choice.tools.push(it.args);
    if (it.type === "message") choice.content = it.parts.join("\n");
  }
  return decoded(choices);
}

/** Every text a client holds, joined: for "the client never got X" assertions. */
export function allText(rebuilt: Rebuilt): string {
  return [...rebuilt.choices.values()].map((c) => [c.content, ...c.tools, c.legacy ?? ""].join("\n")).join("\n");
}
