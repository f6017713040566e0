/**
 * Record ids: a prefix naming the kind of record and 80 random bits, made by guardgate rather
 * than the database so every store implementation assigns them alike.
 */
import { randomBytes } from "node:crypto";

/** A new id such as `ws_3f9a0c…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(10).toString("hex")}`;
}

/** A new id that sorts by creation time (log records): base-36 milliseconds, then random. */
export function newTimeOrderedId(prefix: string, now = Date.now()): string {
  return `${prefix}_${now.toString(36).padStart(9, "0")}${randomBytes(6).toString("hex")}`;
}

/** Ids and slugs a user chooses: a letter or digit, then letters, digits, `.`, `_`, `:`, `-`. */
export const USER_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$";

/** Slugs (`@slug/model`, `virtual_key`): lower case, digits and dashes. */
export const SLUG_PATTERN = "^[a-z0-9][a-z0-9-]{0,62}$";
