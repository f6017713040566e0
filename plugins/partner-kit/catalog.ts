/**
 * What the partner reference (docs/partners.md) says about each partner plugin beyond its
 * metadata: the vendor, and per check what decides the verdict and what it can redact. Kept as
 * data beside each plugin, so the table is generated and cannot drift from the code.
 */
import type { PluginDefinition } from "../../core/index.js";

/** Facts of one partner check for the reference. */
export interface PartnerCheckFacts {
  /** What in the service's answer fails the check. */
  verdict: string;
  /** What the check can replace in the request or response (`redact: true`); absent when nothing. */
  redaction?: string;
}

/** A partner plugin with its facts. */
export interface PartnerPlugin {
  /** The vendor and product, as a reader knows them. */
  vendor: string;
  /** The public document the wire format follows. */
  reference: string;
  plugin: PluginDefinition;
  /** Facts per check id (without the plugin prefix). */
  checks: Readonly<Record<string, PartnerCheckFacts>>;
}

/** Declares a partner plugin with its facts; throws when a check has none, so the reference is whole. */
export function definePartner(partner: PartnerPlugin): PartnerPlugin {
  for (const check of partner.plugin.checks) {
    if (!partner.checks[check.id]) throw new Error(`partner plugin ${partner.plugin.id}: check ${check.id} has no facts`);
  }
  return partner;
}
