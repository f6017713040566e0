/**
 * The answer of `POST /admin/v1/reload`: what seeding the config file did and what a reload removed.
 * The admin API owns this shape (its route describes it); server/lifecycle/ fills it, and imports it
 * from here because it mounts the admin plugin, so the admin API never reads server/lifecycle/.
 */

/** Counts of one kind of record. */
export interface SeedCounts {
  created: number;
  updated: number;
  unchanged: number;
}

/** What seeding did, by kind. */
export interface SeedReport {
  organization_id: string;
  api_keys: SeedCounts;
  providers: SeedCounts;
  guardrails: SeedCounts;
  configs: SeedCounts;
  policies: SeedCounts;
  plugin_credentials: SeedCounts;
}

/** What a reload did. */
export interface ReloadReport {
  file: string;
  seeded: SeedReport;
  /** Records the previous file seeded and this one no longer holds, deleted: `kind: ids`. */
  removed: Record<"api_keys" | "providers" | "guardrails" | "configs" | "policies" | "plugin_credentials", string[]>;
  /** Keys of the file that changed but take effect only at the next start. */
  restart_needed: string[];
}
