/**
 * Client connections and whether a request is in flight on each, so a graceful stop can drop
 * every connection with nothing in flight — including ones that connected and never sent a
 * request, which Node's own idle-connection sweep leaves open until its header time-out.
 */
import { type Server, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";

/** Tracks the connections of a server. */
export class ConnectionTracker {
  readonly #inFlight = new Map<Socket, number>();

  constructor(server: Server) {
    server.on("connection", (socket: Socket) => {
      this.#inFlight.set(socket, 0);
      socket.once("close", () => this.#inFlight.delete(socket));
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

  /** Destroys connections with no request in flight; the others close when their answer is done. */
  closeIdle(): void {
    this.#closing = true;
    for (const [socket, inFlight] of this.#inFlight) if (inFlight === 0) socket.destroy();
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
