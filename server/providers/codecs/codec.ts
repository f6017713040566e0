/**
 * A client codec: one wire format a client speaks, translated to the OpenAI chat form and back, so
 * that a provider kind of another format is reached through its chat backend (kind.ts). One
 * module per format in this folder, listed in `CLIENT_CODECS` (index.ts).
 */
import type { Json, ProviderCall } from "../kind.js";

/** Turns one client format into the OpenAI chat form and back. */
export interface ClientCodec {
  /** The client's request as an OpenAI chat request; throws a 400 GatewayError naming what cannot be said. */
  toChat(body: Json, call: ProviderCall): Json;
  /** An OpenAI chat completion as the client's answer. */
  fromChat(completion: Json, body: Json): Json;
  /** OpenAI chat chunks as the client's stream, event by event, its end included. */
  streamFromChat(chunks: AsyncIterable<Json>, body: Json): AsyncIterable<Buffer>;
}
