/**
 * The frame of a contract fake for a partner guardrail service: a real HTTP server on 127.0.0.1
 * that routes by method and path, checks the vendor's credential header, and answers in the
 * vendor's wire format. Tests inject the failures a real service shows (an error status with the
 * vendor's error body, a stall, a malformed body) to see how an adapter reports them.
 */
import type { ServerResponse } from "node:http";
import { type LocalServer, type ReceivedRequest, sendJson, startServer } from "../http-server.js";

/** What a route answers: a status and a JSON body, plus headers. */
export interface FakeAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A failure the fake shows instead of its normal answer, until cleared. */
export type Fault =
  /** This status, with this body (the vendor's error body) and headers (retry-after). */
  | { kind: "status"; status: number; body?: unknown; headers?: Record<string, string> }
  /** A 200 whose body is not JSON. */
  | { kind: "malformed" }
  /** A 200 whose JSON lacks the fields the vendor always sends. */
  | { kind: "empty"; body?: unknown }
  /** Never answers (the adapter's time limit must end the call). */
  | { kind: "stall" };

/** A route's handler: the parsed JSON body (undefined when not JSON) and the raw request. */
export type Route = (body: unknown, request: ReceivedRequest, path: string) => FakeAnswer;

/** How a fake is built. */
export interface VendorFakeOptions {
  /** `"POST /v1/text/guard"` → handler. A key ending in `*` matches any path with that prefix. */
  routes: Record<string, Route>;
  /** Whether the request carries a valid credential; when false the fake answers `unauthorized`. */
  authorized(request: ReceivedRequest): boolean;
  /** The vendor's answer to a missing or wrong credential. */
  unauthorized: FakeAnswer;
}

/** A running fake. */
export interface VendorFake {
  origin: string;
  requests: ReceivedRequest[];
  /** Requests' bodies, parsed. */
  bodies(): unknown[];
  /** Shows this failure on every request until `fault(undefined)`. */
  fault(fault: Fault | undefined): void;
  close(): Promise<void>;
}

function parse(body: string): unknown {
  try {
    return body === "" ? undefined : JSON.parse(body);
  } catch {
    return undefined;
  }
}

function send(response: ServerResponse, answer: FakeAnswer): void {
  for (const [name, value] of Object.entries(answer.headers ?? {})) response.setHeader(name, value);
  sendJson(response, answer.status, answer.body);
}

function findRoute(routes: Record<string, Route>, method: string, path: string): Route | undefined {
  const exact = routes[`${method} ${path}`];
  if (exact) return exact;
  for (const [key, route] of Object.entries(routes)) {
    if (key.endsWith("*") && `${method} ${path}`.startsWith(key.slice(0, -1))) return route;
  }
  return undefined;
}

/** Starts a fake vendor service. */
export async function startVendorFake(options: VendorFakeOptions): Promise<VendorFake> {
  let current: Fault | undefined;
  const stalled = new Set<ServerResponse>();
  const server: LocalServer = await startServer((request, response) => {
    const path = request.url.split("?")[0] ?? "";
    if (current?.kind === "stall") {
      stalled.add(response);
      return;
    }
    if (!options.authorized(request)) return send(response, options.unauthorized);
    if (current?.kind === "status") {
      return send(response, {
        status: current.status,
        body: current.body ?? {},
        ...(current.headers && { headers: current.headers }),
      });
    }
    if (current?.kind === "malformed") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{ this is not json");
      return;
    }
    if (current?.kind === "empty") return send(response, { status: 200, body: current.body ?? {} });
    const route = findRoute(options.routes, request.method, path);
    if (!route) return send(response, { status: 404, body: { error: `no route ${request.method} ${path}` } });
    const body = parse(request.body);
    return send(response, route(body, request, path));
  });
  return {
    origin: server.origin,
    requests: server.requests,
    bodies: () => server.requests.map((r) => parse(r.body)),
    fault: (fault) => {
      current = fault;
    },
    close: async () => {
      for (const response of stalled) response.destroy();
      await server.close();
    },
  };
}

/** The header's value as one string ("" when absent). */
export function header(request: ReceivedRequest, name: string): string {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? (value[0] ?? "") : (value ?? "");
}

/** Texts the fakes treat as an attack: a classic instruction override. */
export const INJECTION = /ignore (all )?previous instructions/i;

/** Texts the fakes treat as toxic. */
export const TOXIC = /\b(idiot|stupid)\b/i;

/** E-mail addresses, the personal data every fake recognises. */
export const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;

/** Each e-mail address in a text, with its offsets. */
export function emails(text: string): Array<{ value: string; start: number; end: number }> {
  return [...text.matchAll(EMAIL)].map((m) => ({ value: m[0], start: m.index, end: m.index + m[0].length }));
}
