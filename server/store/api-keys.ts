/**
 * API keys: 32 random bytes shown once, stored as their SHA-256. A key has enough entropy that a
 * fast hash is safe (no dictionary to guess from); the lookup goes by hash and is confirmed with
 * a constant-time comparison.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** Every key starts with this, so leaked keys are easy to find in code and logs. */
export const KEY_PREFIX = "gg-";

/** A new random key. */
export function generateApiKey(): string {
  return `${KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
}

/** SHA-256 of a key, hex. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** Compares two hex hashes in constant time. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/** The part of a key shown in listings: its prefix and last four characters. */
export function keyHint(key: string): string {
  return `${key.slice(0, KEY_PREFIX.length + 4)}…${key.slice(-4)}`;
}
