/**
 * The gateway's own `initialize` with an upstream server, for a client that sends none (a
 * stateless 2026-07-28 request): the gateway offers the newest revision with sessions and the
 * capabilities the client declared in the request's `_meta`, and checks the server's choice.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { SESSION_VERSIONS, UPSTREAM_VERSION } from "./jsonrpc.js";

/** How long the gateway waits for the server's answer to its `initialize`. */
const INITIALIZE_TIMEOUT_MS = 30_000;

/** What the server said of itself. */
export interface UpstreamInitialized {
  protocolVersion: string;
  capabilities?: Record<string, unknown>;
  serverInfo?: Record<string, unknown>;
}

/** Starts `transport` and initializes the upstream session; resolves with the server's answer. */
export async function initializeUpstream(
  transport: Transport,
  client: { capabilities?: Record<string, unknown>; clientInfo?: Record<string, unknown> },
): Promise<UpstreamInitialized> {
  const id = "guardgate-initialize";
  const answer = new Promise<JSONRPCMessage>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no answer to initialize within ${INITIALIZE_TIMEOUT_MS} ms`)),
      INITIALIZE_TIMEOUT_MS,
    );
    timer.unref();
    transport.onmessage = (message) => {
      if ("id" in message && message.id === id && !("method" in message)) {
        clearTimeout(timer);
        resolve(message);
      }
    };
    transport.onclose = () => reject(new Error("the server closed the connection"));
  });
  await transport.start();
  await transport.send({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: UPSTREAM_VERSION,
      capabilities: client.capabilities ?? {},
      clientInfo: client.clientInfo ?? { name: "guardgate", version: "1" },
    },
  });
  const message = await answer;
  if ("error" in message) throw new Error(`initialize failed: ${message.error.message}`);
  const result = (message as unknown as { result: UpstreamInitialized }).result;
  const version = String(result.protocolVersion);
  if (!SESSION_VERSIONS.includes(version))
    throw new Error(`the server chose protocol version ${version}, which the gateway does not speak`);
  transport.setProtocolVersion?.(version);
  await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return result;
}
