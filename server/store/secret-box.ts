/**
 * Encryption at rest of credentials: AES-256-GCM with a random 96-bit nonce per value, and the
 * record the value belongs to as additional authenticated data, so a sealed value copied onto
 * another record does not open. The key comes from `GUARDGATE_SECRET_KEY`, or is generated once
 * into the data folder (mode 0600).
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { StoreError } from "./errors.js";
import type { MetaRepository } from "./repository.js";

const VERSION = "v1";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** The file a generated key is kept in, inside the data folder. */
export const SECRET_KEY_FILE = "secret.key";

/** Seals and opens credentials with one key. */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new StoreError("secret_key_invalid", "the secret key must be 32 bytes");
    this.#key = Buffer.from(key);
  }

  /** Encrypts `plaintext` for the record named by `context` (e.g. `integration:int_…`). */
  seal(plaintext: string, context: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#key, nonce);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return `${VERSION}.${Buffer.concat([nonce, cipher.getAuthTag(), body]).toString("base64url")}`;
  }

  /** Decrypts a value sealed for `context`; throws a StoreError when it does not open. */
  open(sealed: string, context: string): string {
    const [version, payload] = sealed.split(".", 2);
    if (version !== VERSION || payload === undefined) {
      throw new StoreError("secret_unreadable", `the sealed credentials of ${context} are not in a known format`);
    }
    const raw = Buffer.from(payload, "base64url");
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.#key, raw.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(raw.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
    } catch (error) {
      throw new StoreError(
        "secret_unreadable",
        `the credentials of ${context} cannot be decrypted with this secret key (wrong key, or the value was tampered with)`,
        { cause: error },
      );
    }
  }

  /** A value derived from the key that identifies it without revealing it. */
  fingerprint(): string {
    return createHmac("sha256", this.#key).update("guardgate secret key check").digest("hex").slice(0, 16);
  }
}

/** Parses `GUARDGATE_SECRET_KEY`: 64 hex characters, or base64 / base64url of 32 bytes. */
export function parseSecretKey(text: string): Buffer {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, "hex");
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) {
    const key = Buffer.from(value.replace(/-/g, "+").replace(/_/g, "/"), "base64");
    if (key.length === 32) return key;
  }
  throw new StoreError(
    "secret_key_invalid",
    "GUARDGATE_SECRET_KEY must be 32 bytes written as 64 hex characters or as base64 (for example the output of `openssl rand -base64 32`)",
  );
}

/** Where the key came from. */
export type SecretKeySource = "environment" | "file" | "generated";

/**
 * The secret key: from `GUARDGATE_SECRET_KEY`, else from DIR/secret.key, else a new random key
 * written there with mode 0600. `onGenerated` is called once, when a key is generated.
 */
export function loadSecretKey(
  dataDir: string,
  env: NodeJS.ProcessEnv = process.env,
  onGenerated: (file: string) => void = () => {},
): { box: SecretBox; source: SecretKeySource } {
  const fromEnv = env.GUARDGATE_SECRET_KEY;
  if (fromEnv) return { box: new SecretBox(parseSecretKey(fromEnv)), source: "environment" };
  const file = path.join(dataDir, SECRET_KEY_FILE);
  let text: string | undefined;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new StoreError("secret_key_unreadable", `cannot read the secret key ${file}: ${(error as Error).message}`);
    }
  }
  if (text !== undefined) {
    if ((statSync(file).mode & 0o077) !== 0) {
      process.emitWarning(`${file} is readable by other users; restrict it with chmod 600`);
    }
    try {
      return { box: new SecretBox(parseSecretKey(text)), source: "file" };
    } catch {
      throw new StoreError("secret_key_invalid", `${file} does not hold a valid secret key (32 bytes, base64)`);
    }
  }
  const key = randomBytes(32);
  try {
    // `wx`: never overwrite a key another process has just written.
    writeFileSync(file, `${key.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return loadSecretKey(dataDir, env, onGenerated);
    throw new StoreError("secret_key_unwritable", `cannot write a new secret key to ${file}: ${(error as Error).message}`);
  }
  onGenerated(file);
  return { box: new SecretBox(key), source: "generated" };
}

const FINGERPRINT_KEY = "secret_key_fingerprint";

/**
 * Ties a store to its key: the first key used is remembered by fingerprint, and a different key
 * later is refused at start instead of failing on the first request that needs a credential.
 */
export async function bindSecretKey(meta: MetaRepository, box: SecretBox): Promise<void> {
  const expected = await meta.get(FINGERPRINT_KEY);
  const actual = box.fingerprint();
  if (expected === undefined) {
    await meta.set(FINGERPRINT_KEY, actual);
    return;
  }
  if (expected !== actual) {
    throw new StoreError(
      "secret_key_mismatch",
      `the secret key (fingerprint ${actual}) is not the one this store's credentials were encrypted with (fingerprint ${expected}); set GUARDGATE_SECRET_KEY to the original key or restore ${SECRET_KEY_FILE} in the data folder`,
    );
  }
}
