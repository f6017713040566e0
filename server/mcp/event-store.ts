/**
 * The events of one session's streams, kept so a client that lost a stream resumes it with
 * `Last-Event-ID` (the SDK's server transport asks this store). Bounded: the oldest events go first
 * once a session holds more than its count or bytes, and a client asking to resume from an event
 * no longer held is told so (the transport answers 400) rather than given a stream with a gap.
 */
import type { EventStore } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** How much one session keeps. */
export interface EventStoreLimits {
  maxEvents: number;
  maxBytes: number;
}

/** Defaults: 1,000 events or 8 MiB per session. */
export const DEFAULT_EVENT_LIMITS: EventStoreLimits = { maxEvents: 1000, maxBytes: 8 * 1024 * 1024 };

interface Stored {
  streamId: string;
  message: JSONRPCMessage;
  bytes: number;
}

/** One session's events in order; ids are `<stream>_<sequence>`. */
export class SessionEventStore implements EventStore {
  readonly #events = new Map<string, Stored>();
  #next = 0;
  #bytes = 0;

  constructor(readonly limits: EventStoreLimits = DEFAULT_EVENT_LIMITS) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${++this.#next}`;
    const bytes = JSON.stringify(message).length;
    this.#events.set(id, { streamId, message, bytes });
    this.#bytes += bytes;
    for (const [oldId, old] of this.#events) {
      if (this.#events.size <= this.limits.maxEvents && this.#bytes <= this.limits.maxBytes) break;
      this.#events.delete(oldId);
      this.#bytes -= old.bytes;
    }
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.#events.get(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = this.#events.get(lastEventId);
    if (!last) return "";
    let after = false;
    for (const [id, event] of this.#events) {
      if (id === lastEventId) {
        after = true;
        continue;
      }
      // A priming event holds no message ({}); it only marks where a stream began.
      if (after && event.streamId === last.streamId && "jsonrpc" in event.message) await send(id, event.message);
    }
    return last.streamId;
  }
}
