/**
 * How the stream enforcer reads one upstream event: whether its data is whole, and the event as
 * every client would read it when its JSON names a key twice.
 */
import { hasDuplicateKeys } from "../../core/internal.js";
import { eventObject, replacedEvent } from "../formats/format.js";
import type { SseEvent } from "../formats/sse.js";

/** Whether an event's data is complete: `[DONE]` or a JSON value that parses. */
export function isWhole(event: SseEvent): boolean {
  if (event.data === "[DONE]") return true;
  try {
    JSON.parse(event.data);
    return true;
  } catch {
    return false;
  }
}

/**
 * The event as every client reads it. An object with a key twice is read differently by different
 * parsers (the last one wins in JavaScript and Python, the first in others), while the checks read
 * it one way: such an event leaves re-written from the value the checks read.
 */
export function readAlike(event: SseEvent): SseEvent {
  if (!event.data.includes("{") || !hasDuplicateKeys(event.data)) return event;
  const value = eventObject(event.data);
  return value ? { ...event, raw: replacedEvent(event, value) } : event;
}
