/**
 * Client connections and whether a request is in flight on each, so a graceful stop can drop
 * every connection with nothing in flight — including ones that connected and never sent a
 * request, which Node's own idle-connection sweep leaves open until its header time-out.
 */
import type { Server } from "node:http";
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
