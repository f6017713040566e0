/**
 * The address policy for hosts a client chose (`custom_host`, `x-gateway-custom-host`): checked
 * when the connection is made, on the addresses DNS actually returned, so a name cannot be
 * re-pointed at a private address between a check and the connect (DNS rebinding).
 */
import dns from "node:dns";
import net from "node:net";
import { addressAllowed, type AddressPolicy, classifyAddress } from "../../core/internal.js";

/** Code of the error raised when a custom host resolves only to refused addresses. */
export const ADDRESS_REFUSED = "ERR_GUARDGATE_ADDRESS_REFUSED";

/** An error for a refused address. */
export function addressRefused(host: string, addresses: string[]): Error & { code: string } {
  const classes = addresses.map((a) => `${a} (${classifyAddress(a)})`).join(", ");
  const error = new Error(
    `custom host "${host}" resolves to ${classes}, which the gateway's custom_hosts setting refuses`,
  ) as Error & { code: string };
  error.code = ADDRESS_REFUSED;
  return error;
}

/** Checks a host that is an IP literal; names are checked at connect time by `guardedLookup`. */
export function checkLiteralHost(hostname: string, policy: AddressPolicy): void {
  const bare = hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(bare) && !addressAllowed(bare, policy)) throw addressRefused(hostname, [bare]);
}

type LookupCallback = (error: Error | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `lookup` for net.connect that keeps only the addresses the policy allows. */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const allowed = addresses.filter((a) => addressAllowed(a.address, policy));
      const first = allowed[0];
      if (!first) {
        return callback(
          addressRefused(
            hostname,
            addresses.map((a) => a.address),
          ),
          [],
        );
      }
      if (options.all) return callback(null, allowed);
      callback(null, first.address, first.family);
    });
  };
}
