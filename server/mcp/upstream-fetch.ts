/**
 * The fetch the MCP gateway's upstream transports call with: every connection through the address
 * guard of server/upstream/ (the address DNS returned is checked when the connection is made), the
 * server's credentials added here and nowhere else, and a cap on what an answer may bring: a JSON
 * body as a whole, an event stream per event.
 */
import { Agent, fetch as undiciFetch } from "undici";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { AddressPolicy } from "../../core/internal.js";
import { checkLiteralHost, guardedLookup } from "../upstream/guarded-lookup.js";
import { SecretScrubber } from "../upstream/sent-secrets.js";
import type { McpServerRecord } from "../sources/types.js";

/** What a server's answers may hold. */
export interface UpstreamLimits {
  /** Largest JSON answer, and largest single event of a stream, in bytes. */
  maxMessageBytes: number;
}

/** The credential headers sent to a server: its static headers and its bearer token. */
export function credentialHeaders(server: McpServerRecord): Record<string, string> {
  return {
    ...server.headers,
    ...(server.bearerToken !== undefined && { authorization: `Bearer ${server.bearerToken}` }),
  };
}

/** Whether a server is sent credentials the gateway must keep from its clients. */
export function hasSecrets(server: McpServerRecord): boolean {
  return server.bearerToken !== undefined || Object.keys(server.headers ?? {}).length > 0;
}

/** Cuts a server's credentials out of a text headed for a client or a log. */
export function scrubberFor(server: McpServerRecord): (text: string) => string {
  const secrets = [...Object.values(server.headers ?? {}), ...(server.bearerToken !== undefined ? [server.bearerToken] : [])];
  if (secrets.length === 0) return (text) => text;
  const scrubber = new SecretScrubber(secrets);
  return (text) => scrubber.text(text);
}

/** Words of the error an answer over the cap raises; the SDK's transports wrap it in their own. */
const TOO_LARGE = "is larger than the gateway takes";

/** An answer larger than the cap. */
export class UpstreamTooLarge extends Error {}

/** Whether a transport's error is an answer over the cap, however wrapped. */
export function isTooLarge(error: unknown): boolean {
  return error instanceof Error && error.message.includes(TOO_LARGE);
}

/** Counts bytes since the last event boundary (or since the start, for a JSON body) and errors past the cap. */
function capped(body: ReadableStream<Uint8Array>, maxBytes: number, perEvent: boolean): ReadableStream<Uint8Array> {
  let since = 0;
  let last = -1;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        let over = false;
        if (perEvent) {
          // An event ends at a blank line (CR bytes aside); its bytes up to there count against the cap.
          for (let i = 0; i < chunk.length && !over; i++) {
            const byte = chunk[i];
            if (byte === 13) continue;
            if (byte === 10 && last === 10) since = 0;
            else over = ++since > maxBytes;
            last = byte as number;
          }
        } else over = (since += chunk.length) > maxBytes;
        if (over) {
          controller.error(new UpstreamTooLarge(`an answer of the MCP server ${TOO_LARGE} (${maxBytes} bytes)`));
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

/** Builds the guarded agents once per gateway; `fetchFor` hands each server its fetch. */
export class UpstreamFetch {
  readonly #trusted: Agent;
  readonly #custom: Agent;
  readonly #customPolicy: AddressPolicy;

  constructor(
    customHosts: AddressPolicy,
    readonly limits: UpstreamLimits,
  ) {
    // The operator's own servers may sit on the private network; metadata addresses stay refused.
    this.#trusted = new Agent({ connect: { lookup: guardedLookup({ allowLoopback: true, allowPrivate: true }) } });
    this.#customPolicy = customHosts;
    this.#custom = new Agent({ connect: { lookup: guardedLookup(customHosts) } });
  }

  /** The fetch for one server's transport: credentials added, addresses guarded, answers capped. */
  fetchFor(server: McpServerRecord, extraHeaders: Record<string, string> = {}): FetchLike {
    const trusted = server.trusted !== false;
    const dispatcher = trusted ? this.#trusted : this.#custom;
    const policy = trusted ? { allowLoopback: true, allowPrivate: true } : this.#customPolicy;
    const credentials = credentialHeaders(server);
    const maxBytes = this.limits.maxMessageBytes;
    return async (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      checkLiteralHost(url.hostname, policy);
      const headers = new Headers(init?.headers);
      for (const [name, value] of Object.entries(extraHeaders)) headers.set(name, value);
      for (const [name, value] of Object.entries(credentials)) headers.set(name, value);
      const response = await undiciFetch(url, {
        ...(init as Parameters<typeof undiciFetch>[1]),
        headers: headers as unknown as Record<string, string>,
        dispatcher,
      });
      if (!response.body) return response as unknown as Response;
      const stream = (response.headers.get("content-type") ?? "").includes("text/event-stream");
      return new Response(capped(response.body as ReadableStream<Uint8Array>, maxBytes, stream), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers as unknown as Headers,
      });
    };
  }

  async close(): Promise<void> {
    await Promise.all([this.#trusted.close(), this.#custom.close()]);
  }
}
