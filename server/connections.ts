/**
 * Client connections and whether a request is in flight on each, so a graceful stop can drop
 * every connection with nothing in flight — including ones that connected and never sent a
 * request, which Node's own idle-connection sweep leaves open until its header time-out. An idle
 * keep-alive connection is not dropped at once: a request its client sent just before the stop
 * may not have been read yet, and dropping the connection would reset it unanswered.
 */
import { type Server, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";

/**
 * How long an idle connection stays open once a stop began, so a request already on its way is
 * read and answered (with `Connection: close`) rather than reset: a round trip on any network a
 * gateway serves, and short enough not to slow a stop noticeably.
 */
export const IDLE_LINGER_MS = 500;

/** Tracks the connections of a server. */
export class ConnectionTracker {
  readonly #inFlight = new Map<Socket, number>();

  constructor(
    server: Server,
    private readonly lingerMs = IDLE_LINGER_MS,
  ) {
    // Node's server.close() sweeps idle connections itself, destroying any whose request arrived
    // but was not read yet: the stop's own sweep (closeIdle) takes its place.
    server.closeIdleConnections = () => this.closeIdle();
    server.on("connection", (socket: Socket) => {
      this.#inFlight.set(socket, 0);
      socket.once("close", () => this.#inFlight.delete(socket));
      if (this.#closing) this.#lingerThenClose([socket]);
    });
    server.on("request", (request, response) => {
      const socket = request.socket;
      this.#inFlight.set(socket, (this.#inFlight.get(socket) ?? 0) + 1);
      response.once("close", () => {
        const left = (this.#inFlight.get(socket) ?? 1) - 1;
        if (!this.#inFlight.has(socket)) return;
        this.#inFlight.set(socket, left);
        if (left === 0 && this.#closing) socket.destroy();
      });
    });
  }

  #closing = false;

  /**
   * Closes connections with no request in flight once they stayed idle for the linger time; the
   * others close when their answer is done. Requests arriving meanwhile are answered.
   */
  closeIdle(): void {
    if (this.#closing) return;
    this.#closing = true;
    this.#lingerThenClose([...this.#inFlight].filter(([, inFlight]) => inFlight === 0).map(([socket]) => socket));
  }

  /** Destroys those of `sockets` still idle once the linger time passed. */
  #lingerThenClose(sockets: Socket[]): void {
    if (!sockets.length) return;
    setTimeout(() => {
      for (const socket of sockets) if (this.#inFlight.get(socket) === 0) socket.destroy();
    }, this.lingerMs).unref();
  }

  /** Destroys every connection (the grace period ran out). */
  closeAll(): void {
    this.#closing = true;
    for (const socket of this.#inFlight.keys()) socket.destroy();
  }
}

/** Statuses of errors Node's HTTP parser reports before a request exists. */
const PARSER_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: "headers_too_large",
    message: "the request's headers are larger than the server accepts",
  },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: "request_timeout", message: "the request took too long to arrive" },
};

/**
 * Answers a request the HTTP parser refused (431, 408, a malformed request: 400) and closes the
 * connection, saying so with `Connection: close`: the parser's state is lost, and a keep-alive
 * client that is not told would send its next request into a closed socket.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const known = (error.code && PARSER_ERRORS[error.code]) || {
    status: 400,
    code: "malformed_request",
    message: "the request is not valid HTTP/1.1",
  };
  const body = JSON.stringify({
    error: { message: known.message, type: "invalid_request_error", param: null, code: known.code },
  });
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${known.status} ${STATUS_CODES[known.status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  } else socket.destroy();
}
