/**
 * Which network addresses outbound calls may reach. Checks that call out (webhooks, URL checks,
 * JWKS fetches, log sinks) and client-supplied custom hosts must not become a way into the
 * service's own network (SSRF): private, loopback, link-local and cloud-metadata addresses are
 * refused unless a setting allows them.
 */
import ipaddr from "ipaddr.js";

/** How an address is classified. */
export type AddressClass = "public" | "loopback" | "private" | "link-local" | "metadata" | "reserved";

/** What outbound calls may reach. */
export interface AddressPolicy {
  allowLoopback: boolean;
  allowPrivate: boolean;
}

/** The default for calls a check makes: public addresses only. */
export const PUBLIC_ONLY: AddressPolicy = { allowLoopback: false, allowPrivate: false };

// Cloud metadata services answer on these; they hold instance credentials.
const METADATA = new Set(["169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254"]);

/** Classifies an IP address literal; throws a TypeError when it is not one. */
export function classifyAddress(address: string): AddressClass {
  let ip = ipaddr.parse(address.replace(/^\[|\]$/g, ""));
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  if (METADATA.has(ip.toString())) return "metadata";
  switch (ip.range()) {
    case "unicast":
      return "public";
    case "loopback":
      return "loopback";
    case "private":
    case "uniqueLocal":
    case "carrierGradeNat":
      return "private";
    case "linkLocal":
      return "link-local";
    default:
      return "reserved";
  }
}

/** Whether the policy lets a call reach this address; metadata addresses are never reachable. */
export function addressAllowed(address: string, policy: AddressPolicy): boolean {
  switch (classifyAddress(address)) {
    case "public":
      return true;
    case "loopback":
      return policy.allowLoopback;
    case "private":
    case "link-local":
      return policy.allowPrivate;
    default:
      return false;
  }
}
