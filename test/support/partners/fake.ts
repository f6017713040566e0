/**
 * The pattern of contract fakes for partner guardrail services: a real HTTP server on 127.0.0.1
 * that speaks one vendor's wire format (paths, auth headers, request and response bodies, error
 * bodies), answering from what the request says, and that a test can make fail the ways the real
 * service fails. Each vendor's fake (`test/support/partners/<vendor>.ts`) supplies its wire and
 * names the public document it follows.
 */
import type { ServerResponse } from "node:http";
import type { CheckSettings } from "../../../core/index.js";
import { type LocalServer, type ReceivedRequest, sendJson, startServer } from "../http-server.js";

/** One vendor's side of the contract. */
export interface VendorWire {
  /** Whether the request carries the credentials the fake was started with. */
  authorized(request: ReceivedRequest): boolean;
  /** The vendor's error body for a status and message. */
  errorBody(status: number, message: string): unknown;
  /** The answer to an authorized request: route, validate and decide as the vendor does. */
  answer(request: ReceivedRequest): VendorAnswer | Promise<VendorAnswer>;
}

/** A vendor's answer: status, JSON body, extra headers. */
export interface VendorAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A way the next call fails, instead of the vendor's normal answer. */
export type Fault =
  /** An error status with the vendor's error body (and headers, e.g. `retry-after`). */
  | { status: number; message?: string; headers?: Record<string, string> }
  /** No answer at all, until the client gives up. */
  | "hang"
  /** HTTP 200 with a body that is not JSON. */
  | "malformed"
  /** HTTP 200 with this JSON body (an answer that lacks fields). */
  | { body: unknown };

/** A running fake. */
export interface PartnerFake extends LocalServer {
  /** The next calls fail this way, one fault per call, in order. */
  fail(...faults: Fault[]): void;
}

/** Check settings that let checks call the fake on 127.0.0.1. */
export const FAKE_SETTINGS: CheckSettings = { allowLoopback: true };

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  sendJson(response, status, body);
}

/** Starts a fake speaking `wire`. */
export async function startPartnerFake(wire: VendorWire): Promise<PartnerFake> {
  const faults: Fault[] = [];
  const server = await startServer(async (request, response) => {
    const fault = faults.shift();
    if (fault === "hang") return;
    if (fault === "malformed") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{not json");
      return;
    }
    if (fault && "body" in fault) return send(response, 200, fault.body);
    if (fault) return send(response, fault.status, wire.errorBody(fault.status, fault.message ?? "fault"), fault.headers);
    if (!wire.authorized(request)) return send(response, 401, wire.errorBody(401, "invalid credentials"));
    const { status, body, headers } = await wire.answer(request);
    send(response, status, body, headers);
  });
  return { ...server, fail: (...more: Fault[]) => faults.push(...more) };
}

/** The JSON body of a request, or undefined when it is not JSON. */
export function jsonBody(request: ReceivedRequest): unknown {
  try {
    return JSON.parse(request.body);
  } catch {
    return undefined;
  }
}
