import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "./open.js";
import { loadSecretKey, parseSecretKey, SecretBox } from "./secret-box.js";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "guardgate-key-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("SecretBox", () => {
  const box = new SecretBox(Buffer.alloc(32, 7));

  it("seals with a fresh nonce and opens for the same record only", () => {
    const a = box.seal("sk-secret", "integration:a");
    expect(a).not.toContain("sk-secret");
    expect(box.seal("sk-secret", "integration:a")).not.toBe(a);
    expect(box.open(a, "integration:a")).toBe("sk-secret");
    expect(() => box.open(a, "integration:b")).toThrow(/cannot be decrypted/);
    expect(() => new SecretBox(Buffer.alloc(32, 8)).open(a, "integration:a")).toThrow(/cannot be decrypted/);
  });

  it("detects tampering", () => {
    const sealed = box.seal("value", "c");
    const raw = Buffer.from(sealed.slice(3), "base64url");
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    expect(() => box.open(`v1.${raw.toString("base64url")}`, "c")).toThrow(/tampered/);
  });
});

describe("the secret key", () => {
  it("accepts hex and base64 of 32 bytes, and refuses anything else", () => {
    expect(parseSecretKey("ab".repeat(32))).toHaveLength(32);
    expect(parseSecretKey(Buffer.alloc(32, 1).toString("base64"))).toHaveLength(32);
    expect(() => parseSecretKey("short")).toThrow(/64 hex characters or as base64/);
  });

  it("is generated once into the data folder with mode 0600, and reused", () => {
    const dir = tempDir();
    const generated: string[] = [];
    const first = loadSecretKey(dir, {}, (file) => generated.push(file));
    expect(first.source).toBe("generated");
    expect(generated).toEqual([path.join(dir, "secret.key")]);
    expect(statSync(generated[0]!).mode & 0o777).toBe(0o600);
    const second = loadSecretKey(dir, {}, (file) => generated.push(file));
    expect(second.source).toBe("file");
    expect(generated).toHaveLength(1);
    expect(second.box.fingerprint()).toBe(first.box.fingerprint());
  });

  it("comes from GUARDGATE_SECRET_KEY when set, and a store refuses a different key later", async () => {
    const dir = tempDir();
    const env = { GUARDGATE_SECRET_KEY: "11".repeat(32) };
    const opened = await openStore({ dataDir: dir, env, externalChangePollMs: 0 });
    expect(opened.keySource).toBe("environment");
    await opened.store.close();
    expect(() => readFileSync(path.join(dir, "secret.key"))).toThrow();
    await expect(
      openStore({ dataDir: dir, env: { GUARDGATE_SECRET_KEY: "22".repeat(32) }, externalChangePollMs: 0 }),
    ).rejects.toThrow(/not the one this store's credentials were encrypted with/);
    const again = await openStore({ dataDir: dir, env, externalChangePollMs: 0 });
    await again.store.close();
  });

  it("puts the data folder where --data-dir or GUARDGATE_DATA_DIR says", async () => {
    const dir = tempDir();
    const viaEnv = path.join(dir, "from-env");
    const opened = await openStore({ env: { GUARDGATE_DATA_DIR: viaEnv }, externalChangePollMs: 0 });
    expect(opened.dataDir).toBe(viaEnv);
    expect(statSync(path.join(viaEnv, "guardgate.db")).isFile()).toBe(true);
    expect(statSync(viaEnv).mode & 0o777).toBe(0o700);
    await opened.store.close();
    const viaFlag = path.join(dir, "from-flag");
    const flagged = await openStore({ dataDir: viaFlag, env: { GUARDGATE_DATA_DIR: viaEnv }, externalChangePollMs: 0 });
    expect(flagged.dataDir).toBe(viaFlag);
    await flagged.store.close();
  });
});
