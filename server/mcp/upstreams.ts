/**
 * The upstream end of a client session: an SDK client transport for the server's kind (Streamable
 * HTTP, the older HTTP+SSE) over the guarded fetch, or a channel to the supervised process of a
 * stdio server. Stdio processes come from the operator's config file only: a record from anywhere
 * else that names stdio is refused, so no request can make the gateway start a program.
 */
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerRecord } from "../sources/types.js";
import { StdioMux } from "./stdio-mux.js";
import type { Backoff, SupervisorLog } from "./stdio-process.js";
import type { UpstreamFetch } from "./upstream-fetch.js";

/** An upstream transport and what the bridge may do with it besides sending. */
export interface UpstreamEnd {
  transport: Transport;
  /** Ends the upstream session politely (DELETE on Streamable HTTP) before closing. */
  terminate(): Promise<void>;
}

function key(server: { name: string; workspaceId?: string }): string {
  return `${server.workspaceId ?? ""}\u0000${server.name}`;
}

/** Opens upstream ends, and owns the stdio processes. */
export class McpUpstreams {
  readonly #stdio = new Map<string, StdioMux>();

  constructor(
    readonly fetch: UpstreamFetch,
    readonly log: SupervisorLog,
    readonly backoff?: Backoff,
  ) {}

  /** Starts the processes of the config file's stdio servers; each is then supervised until `close`. */
  startStdio(servers: Iterable<McpServerRecord>): void {
    for (const server of servers) {
      if (server.transport !== "stdio" || this.#stdio.has(key(server))) continue;
      const mux = new StdioMux(server, this.log, this.backoff);
      this.#stdio.set(key(server), mux);
      mux.process.start().catch(() => undefined); // failures are logged and restarted by the supervisor
    }
  }

  /** The supervised process of a stdio server, for its state. */
  stdioProcess(server: McpServerRecord): StdioMux["process"] | undefined {
    return this.#stdio.get(key(server))?.process;
  }

  /** A new upstream end for one client session, or one stateless request. */
  open(server: McpServerRecord, extraHeaders: Record<string, string> = {}): UpstreamEnd {
    if (server.transport === "stdio") {
      const mux = this.#stdio.get(key(server));
      // The process is the file's whatever the record says: a record can only reach a process the operator declared.
      if (!mux) {
        throw new Error(
          `the MCP server "${server.name}" names a stdio command, which only the gateway's config file may declare`,
        );
      }
      const transport = mux.channel();
      return { transport, terminate: () => transport.close() };
    }
    const url = new URL(server.url ?? "");
    const fetch = this.fetch.fetchFor(server, extraHeaders);
    if (server.transport === "sse") {
      const transport = new SSEClientTransport(url, { fetch, eventSourceInit: { fetch } });
      return { transport, terminate: () => transport.close() };
    }
    const transport = new StreamableHTTPClientTransport(url, {
      fetch,
      // A broken GET stream is reopened a few times, then the session reports the loss.
      reconnectionOptions: {
        initialReconnectionDelay: 500,
        maxReconnectionDelay: 5000,
        reconnectionDelayGrowFactor: 2,
        maxRetries: 3,
      },
    });
    return {
      transport,
      terminate: async () => {
        await transport.terminateSession().catch(() => undefined);
        await transport.close();
      },
    };
  }

  /** Stops every stdio process and closes the connection pools. */
  async close(): Promise<void> {
    await Promise.all([...this.#stdio.values()].map((mux) => mux.stop()));
    this.#stdio.clear();
    await this.fetch.close();
  }
}
