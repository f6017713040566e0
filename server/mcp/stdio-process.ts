/**
 * A local MCP server the gateway starts over stdio and keeps running: one process per server of the
 * config file, started with the gateway, restarted with a growing pause when it exits (the pause
 * starts over once a process stayed up a minute), its stderr written to the gateway's log line by
 * line, and stopped when the gateway stops. The gateway initializes each process itself; the
 * sessions of every client share it through channels (stdio-mux.ts).
 */
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerRecord } from "../sources/types.js";
import { UPSTREAM_VERSION } from "./jsonrpc.js";

/** The little of a logger the supervisor writes to. */
export interface SupervisorLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Pauses between restarts. */
export interface Backoff {
  initialMs: number;
  maxMs: number;
  /** A process that stayed up this long restarts after `initialMs` again. */
  stableMs: number;
}

/** Default pauses: half a second, doubling to 30 s. */
export const DEFAULT_BACKOFF: Backoff = { initialMs: 500, maxMs: 30_000, stableMs: 60_000 };

/** How long the gateway waits for a started process to answer `initialize`. */
const INITIALIZE_TIMEOUT_MS = 30_000;

/** What the process said about itself when initialized. */
export interface InitializedServer {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  serverInfo: Record<string, unknown>;
  instructions?: string;
}

/** What the supervisor hands the multiplexer: messages of the current process, and its ends. */
export interface ProcessEvents {
  message(message: JSONRPCMessage): void;
  /** The running process exited (or failed to start); what it had in flight is lost. */
  exited(): void;
}

type State =
  | { kind: "starting"; ready: Promise<InitializedServer> }
  | { kind: "ready"; server: InitializedServer }
  | { kind: "down"; why: string }
  | { kind: "stopped" };

/** One supervised stdio server. */
export class StdioProcess {
  #state: State = { kind: "down", why: "not started" };
  #transport: StdioClientTransport | undefined;
  #pause: number;
  #restart: NodeJS.Timeout | undefined;
  #startedAt = 0;
  #initId = 0;
  #pendingInit: { id: string; resolve(result: InitializedServer): void; reject(error: Error): void } | undefined;
  /** Restarts so far, for the log and the tests. */
  restarts = 0;

  constructor(
    readonly server: McpServerRecord,
    readonly events: ProcessEvents,
    readonly log: SupervisorLog,
    readonly backoff: Backoff = DEFAULT_BACKOFF,
  ) {
    this.#pause = backoff.initialMs;
  }

  /** Starts the process (again); resolves once it is initialized, rejects when it failed to. */
  start(): Promise<InitializedServer> {
    if (this.#state.kind === "stopped") return Promise.reject(new Error(`the stdio server "${this.server.name}" is stopped`));
    const command = this.server.stdio;
    if (!command) return Promise.reject(new Error(`the MCP server "${this.server.name}" has no command`));
    const transport = new StdioClientTransport({
      command: command.command,
      ...(command.args && { args: command.args }),
      ...(command.env && { env: command.env }),
      ...(command.cwd && { cwd: command.cwd }),
      stderr: "pipe",
    });
    this.#transport = transport;
    this.#startedAt = Date.now();
    const fields = { mcpServer: this.server.name };
    let rest = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      const lines = (rest + chunk.toString("utf8")).split("\n");
      rest = lines.pop() ?? "";
      // Capped per line: a process must not fill the log with one endless line.
      for (const line of lines)
        if (line.trim()) this.log.info({ ...fields, stderr: line.slice(0, 4096) }, "MCP stdio server stderr");
      if (rest.length > 4096) rest = rest.slice(0, 4096);
    });
    transport.onmessage = (message) => this.#onMessage(message);
    transport.onerror = (error) => this.log.warn({ ...fields, err: error.message }, "MCP stdio server transport error");
    transport.onclose = () => this.#onExit(transport);
    const ready = (async () => {
      await transport.start();
      this.log.info({ ...fields, pid: transport.pid }, "MCP stdio server started");
      const initialized = await this.#initialize(transport);
      if (this.#transport === transport && this.#state.kind === "starting") this.#state = { kind: "ready", server: initialized };
      return initialized;
    })();
    this.#state = { kind: "starting", ready };
    ready.catch((error: Error) => {
      this.log.error({ ...fields, err: error.message }, "MCP stdio server failed to start");
      if (this.#transport === transport) void transport.close().finally(() => this.#onExit(transport));
    });
    return ready;
  }

  /** The initialized process, waiting while it starts; rejects while it is down. */
  async ready(): Promise<InitializedServer> {
    const state = this.#state;
    if (state.kind === "ready") return state.server;
    if (state.kind === "starting") return state.ready;
    if (state.kind === "stopped") throw new Error(`the stdio MCP server "${this.server.name}" is stopped`);
    throw new Error(`the stdio MCP server "${this.server.name}" is not running (${state.why}); it is being restarted`);
  }

  /** Sends one message to the running process. */
  async send(message: JSONRPCMessage): Promise<void> {
    await this.ready();
    const transport = this.#transport;
    if (!transport) throw new Error(`the stdio MCP server "${this.server.name}" is not running`);
    await transport.send(message);
  }

  /** Stops the process and any restart; the gateway is stopping. */
  async stop(): Promise<void> {
    this.#state = { kind: "stopped" };
    clearTimeout(this.#restart);
    const transport = this.#transport;
    this.#transport = undefined;
    this.#pendingInit?.reject(new Error("stopped"));
    await transport?.close();
  }

  async #initialize(transport: StdioClientTransport): Promise<InitializedServer> {
    const id = `guardgate-init-${++this.#initId}`;
    const answer = new Promise<InitializedServer>((resolve, reject) => {
      this.#pendingInit = { id, resolve, reject };
      const timer = setTimeout(
        () => reject(new Error(`no answer to initialize within ${INITIALIZE_TIMEOUT_MS} ms`)),
        INITIALIZE_TIMEOUT_MS,
      );
      timer.unref();
    });
    await transport.send({
      jsonrpc: "2.0",
      id,
      method: "initialize",
      params: { protocolVersion: UPSTREAM_VERSION, capabilities: {}, clientInfo: { name: "guardgate", version: "1" } },
    });
    const initialized = await answer;
    await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    return initialized;
  }

  #onMessage(message: JSONRPCMessage): void {
    const init = this.#pendingInit;
    if (init && "id" in message && message.id === init.id && !("method" in message)) {
      this.#pendingInit = undefined;
      if ("result" in message) init.resolve(message.result as unknown as InitializedServer);
      else
        init.reject(new Error(`initialize failed: ${(message as { error?: { message?: string } }).error?.message ?? "error"}`));
      return;
    }
    this.events.message(message);
  }

  #onExit(transport: StdioClientTransport): void {
    if (this.#transport !== transport) return;
    this.#transport = undefined;
    this.#pendingInit?.reject(new Error("the process exited"));
    this.#pendingInit = undefined;
    if (this.#state.kind === "stopped") return;
    this.#state = { kind: "down", why: "it exited" };
    this.events.exited();
    if (Date.now() - this.#startedAt >= this.backoff.stableMs) this.#pause = this.backoff.initialMs;
    const pause = this.#pause;
    this.#pause = Math.min(this.#pause * 2, this.backoff.maxMs);
    this.log.warn({ mcpServer: this.server.name, restartInMs: pause }, "MCP stdio server exited; restarting");
    this.#restart = setTimeout(() => {
      this.restarts++;
      this.start().catch(() => undefined);
    }, pause);
    this.#restart.unref();
  }
}
