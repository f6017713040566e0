/**
 * The connection to the Redis server a fleet shares for its limit counters. Commands never wait
 * for a server that is down: with no connection they fail at once (no offline queue), and a
 * command the server does not answer fails after a short time-out; the client reconnects on its
 * own, every half second at most.
 */
import { Redis } from "ioredis";

/** Options of `connectRedis`. */
export interface RedisOptions {
  /** `redis://[:password@]host:port[/db]`. */
  url: string;
  /** A command unanswered after this many ms fails. Default 500. */
  commandTimeoutMs?: number;
}

/** A client that reconnects forever and fails commands fast while it cannot reach the server. */
export function connectRedis(options: RedisOptions): Redis {
  const client = new Redis(options.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 500,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(50 * times, 500),
  });
  // Connection errors are reported by the commands that fail; unhandled, they would crash the process.
  client.on("error", () => {});
  return client;
}
