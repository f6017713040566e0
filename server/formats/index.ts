/**
 * The wire formats guardgate speaks, by name, and the lookups the request path makes: the format
 * of a request type and of a URL's error answers. A new format is one module and one line here.
 */
import type { RequestType } from "../../core/index.js";
import { anthropic } from "./anthropic.js";
import type { FormatName, WireFormat } from "./format.js";
import { openai } from "./openai.js";
import { responses } from "./responses.js";

export type { ErrorFields, FormatEndpoint, FormatName, MockAnswer, StreamText, WireFormat } from "./format.js";

/** Every format, in the order their endpoints are registered. */
export const FORMAT_LIST: readonly WireFormat[] = [openai, anthropic, responses];

/** The formats by name. */
export const FORMATS: Readonly<Record<FormatName, WireFormat>> = { openai, anthropic, responses };

/** The format whose endpoint serves a request type. */
export function formatOfRequestType(requestType: RequestType): WireFormat {
  return FORMAT_LIST.find((format) => format.endpoints.some((e) => e.requestType === requestType)) ?? openai;
}

/**
 * The format a URL's errors answer in: the format owning the route's prefix, and the OpenAI
 * envelope elsewhere (hook, admin and unknown routes).
 */
export function errorFormatOf(url: string): WireFormat {
  return FORMAT_LIST.find((format) => format.endpoints.some((e) => url.startsWith(e.route))) ?? openai;
}
