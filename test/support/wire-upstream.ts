/**
 * An upstream on 127.0.0.1 that answers exactly the bytes a test gives it: a JSON body, or a
 * stream written as the given pieces, each its own socket write with a pause after it (a few
 * milliseconds, or one turn of the event loop), so an event split over pieces reaches the gateway
 * over several network reads, as real networks deliver it.
 */
import type { ServerResponse } from "node:http";
import { type LocalServer, startServer } from "./http-server.js";

/** How the next request is answered. */
export type WireAnswer =
  | { kind: "json"; body: unknown; status?: number }
  /** Server-sent events written as these pieces; `gapMs` between them (0: one event-loop turn). */
  | { kind: "stream"; pieces: Array<string | Buffer>; gapMs?: number };

/** The upstream. */
export interface WireUpstream {
  server: LocalServer;
  /** The base URL a provider record takes. */
  baseUrl: string;
  enqueue(...answers: WireAnswer[]): void;
  close(): Promise<void>;
}

const pause = (ms: number) =>
  new Promise<void>((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(() => setImmediate(resolve))));

async function write(response: ServerResponse, answer: WireAnswer): Promise<void> {
  if (answer.kind === "json") {
    const body = JSON.stringify(answer.body);
    response.writeHead(answer.status ?? 200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    response.end(body);
    return;
  }
  response.writeHead(200, { "content-type": "text/event-stream" });
  response.flushHeaders();
  for (const piece of answer.pieces) {
    if (response.destroyed) return;
    response.write(piece);
    await pause(answer.gapMs ?? 0);
  }
  response.end();
}

/** Starts the upstream; with nothing queued it answers 500. */
export async function startWireUpstream(): Promise<WireUpstream> {
  const queue: WireAnswer[] = [];
  const server = await startServer(async (_request, response) => {
    response.socket?.setNoDelay(true);
    const answer = queue.shift();
    if (!answer) {
      response.writeHead(500, { "content-type": "application/json" });
      response.end('{"error":{"message":"nothing queued"}}');
      return;
    }
    await write(response, answer);
  });
  return {
    server,
    baseUrl: `${server.origin}/v1`,
    enqueue: (...answers) => queue.push(...answers),
    close: () => server.close(),
  };
}
