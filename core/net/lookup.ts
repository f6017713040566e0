/**
 * Name resolution for outbound calls. Every address a host name resolves to is checked against
 * the network policy inside the socket's own lookup, at connect time: the addresses checked are
 * the addresses connected to, so a name that resolves to a public address once and to a private
 * one the next time (DNS rebinding) cannot slip through. The resolver is injectable for tests.
 */
import { promises as dns, type LookupAddress, type LookupOptions } from "node:dns";
import type { LookupFunction } from "node:net";
import { classifyAddress } from "./address-policy.js";
import { OutboundError } from "./errors.js";
import { addressPermitted, type NetworkPolicy } from "./network-policy.js";

/** One address of a host name. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses; rejects (e.g. ENOTFOUND) when it has none. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The operating system's resolver (getaddrinfo: /etc/hosts, then DNS), every address. */
export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** The addresses of a host name, split into those the policy permits and those it refuses. */
export async function resolveWithPolicy(
  hostname: string,
  resolver: Resolver,
  policy: NetworkPolicy,
): Promise<{ permitted: ResolvedAddress[]; refused: ResolvedAddress[] }> {
  const addresses = await resolver(hostname);
  const permitted: ResolvedAddress[] = [];
  const refused: ResolvedAddress[] = [];
  for (const a of addresses) (addressPermitted(hostname, a.address, policy) ? permitted : refused).push(a);
  return { permitted, refused };
}

/** The error for a host whose every address the policy refuses. */
export function refusedError(hostname: string, refused: readonly ResolvedAddress[], advice: string): OutboundError {
  const described = refused.map((a) => `${a.address} (${safeClass(a.address)})`).join(", ");
  return new OutboundError(
    "outbound_address_refused",
    `${hostname} resolves to ${described || "no address"}, which the network policy refuses (SSRF protection; ${advice})`,
  );
}

function safeClass(address: string): string {
  try {
    return classifyAddress(address);
  } catch {
    return "unparsable";
  }
}

function wantedFamily(options: LookupOptions): 0 | 4 | 6 {
  const family = options.family as unknown;
  if (family === 4 || family === "IPv4") return 4;
  if (family === 6 || family === "IPv6") return 6;
  return 0;
}

/**
 * A `lookup` for net/tls sockets that resolves with `resolver` and hands the socket only the
 * addresses the policy permits; when none is permitted, the connection fails with an
 * OutboundError `outbound_address_refused`.
 */
export function guardedLookup(resolver: Resolver, policy: NetworkPolicy): LookupFunction {
  return (hostname, options, callback) => {
    const family = wantedFamily(options);
    resolveWithPolicy(hostname, resolver, policy).then(
      ({ permitted, refused }) => {
        const usable = permitted.filter((a) => family === 0 || a.family === family);
        if (usable.length === 0) {
          const error = permitted.length === 0 ? refusedError(hostname, refused, policy.advice) : notFound(hostname);
          return callback(error as NodeJS.ErrnoException, "", 0);
        }
        if (options.all)
          return callback(
            null,
            usable.map((a) => ({ address: a.address, family: a.family }) as LookupAddress),
          );
        const first = usable[0] as ResolvedAddress;
        callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 0),
    );
  };
}

function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", hostname });
}
