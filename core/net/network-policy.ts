/**
 * The network policy of outbound calls, derived from the gateway's check settings: which
 * addresses a host name may lead to. Cloud metadata and reserved addresses are never reachable;
 * private, loopback and link-local ones only when a setting, or the host's place on the list of
 * internal hosts, allows them.
 */
import type { CheckSettings } from "../plugin-api.js";
import { addressAllowed } from "./address-policy.js";

/** What outbound calls may reach. */
export interface NetworkPolicy {
  allowLoopback: boolean;
  allowPrivate: boolean;
  /** Host names (or `*.suffix` patterns, or IP literals) trusted to be internal, lower case. */
  internalHosts: readonly string[];
  /** What a refusal tells the user to change (not part of the policy's identity). */
  advice: string;
}

const LIBRARY_ADVICE = "see the allowPrivateAddresses, allowLoopback and internalHosts settings";

/** The policy the settings describe; with no settings, public addresses only. */
export function networkPolicy(settings: CheckSettings | undefined): NetworkPolicy {
  const allowPrivate = settings?.allowPrivateAddresses === true;
  return {
    allowPrivate,
    allowLoopback: allowPrivate || settings?.allowLoopback === true,
    internalHosts: (settings?.internalHosts ?? []).map((h) => h.toLowerCase().replace(/^\[|\]$/g, "")),
    advice: settings?.refusalAdvice ?? LIBRARY_ADVICE,
  };
}

/** A string that is equal for equal policies: connection pools are never shared across policies. */
export function policyKey(policy: NetworkPolicy): string {
  return `${policy.allowLoopback ? "L" : "-"}${policy.allowPrivate ? "P" : "-"}|${[...policy.internalHosts].sort().join(",")}`;
}

/** Whether a host name is on the policy's list of internal hosts. */
export function isInternalHost(hostname: string, policy: NetworkPolicy): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  return policy.internalHosts.some((pattern) =>
    pattern.startsWith("*.") ? host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1 : host === pattern,
  );
}

/** Whether a call to `hostname` may connect to `address`. */
export function addressPermitted(hostname: string, address: string, policy: NetworkPolicy): boolean {
  if (isInternalHost(hostname, policy)) return addressAllowed(address, { allowLoopback: true, allowPrivate: true });
  return addressAllowed(address, policy);
}
