/**
 * Plugin credentials declared in the config file: seeded into the store as plugin integrations
 * (idempotently, sealed, validated with the record's path), and served from memory by an app built
 * from the file alone.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../server/app.js";
import type { GatewayFile } from "../../server/sources/config-file.js";
import { type LocalServer, sendJson, startServer } from "../support/http-server.js";
import { startManaged } from "../support/managed.js";

const PLUGIN = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/plugins/partner-service.mjs");
const SHARED = "pk-file-shared-0123456789";
const TEAM = "pk-file-team-b-9876543210";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

let service: LocalServer;
beforeAll(async () => {
  service = await startServer((_request, response) => sendJson(response, 200, { flagged: false }));
});
afterAll(() => service.close());

function fileWith(credentials: GatewayFile["plugin_credentials"]): GatewayFile {
  return { plugins: [PLUGIN], plugin_credentials: credentials ?? [] };
}

describe("plugin credentials in the config file", () => {
  it("are seeded into the store as plugin integrations: the organization's and a workspace's own", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "guardgate-plugin-seed-"));
    dirs.push(dir);
    const file = fileWith([
      { plugin: "partner", credentials: { apiKey: SHARED } },
      { plugin: "partner", workspace: "team-b", credentials: { apiKey: TEAM, region: "us" } },
    ]);
    const first = await startManaged({ dir, file });
    expect(first.report.seeded?.plugin_credentials).toEqual({ created: 2, updated: 0, unchanged: 0 });
    const sources = first.managed.sources.pluginCredentials;
    expect(await sources.forWorkspace(first.keys.workspace_id)).toEqual({ partner: { apiKey: SHARED } });
    expect(await sources.forWorkspace("team-b")).toEqual({ partner: { apiKey: TEAM, region: "us" } });
    await first.close();
    const db = new Database(path.join(dir, "guardgate.db"), { readonly: true });
    const stored = JSON.stringify(db.prepare("SELECT * FROM plugin_integrations").all());
    db.close();
    expect(stored).not.toContain(SHARED);
    expect(stored).not.toContain(TEAM);

    const second = await startManaged({ dir, file });
    expect(second.report.seeded?.plugin_credentials).toEqual({ created: 0, updated: 0, unchanged: 2 });
    await second.close();

    const rotated = fileWith([{ plugin: "partner", credentials: { apiKey: `${SHARED}-rotated` } }]);
    const third = await startManaged({ dir, file: rotated });
    expect(third.report.seeded?.plugin_credentials).toEqual({ created: 0, updated: 1, unchanged: 0 });
    expect(await third.managed.sources.pluginCredentials.forWorkspace(third.keys.workspace_id)).toEqual({
      partner: { apiKey: `${SHARED}-rotated` },
    });
    await third.close();

    await expect(startManaged({ dir, file: fileWith([{ plugin: "partner", credentials: { apiKey: 7 } }]) })).rejects.toThrow(
      "config file: plugin_credentials[0].credentials.apiKey: must be string",
    );
    await expect(startManaged({ dir, file: fileWith([{ plugin: "nosuch", credentials: { apiKey: SHARED } }]) })).rejects.toThrow(
      /config file: plugin_credentials\[0\] \(plugin "nosuch"\): plugin: "nosuch" is not a loaded plugin/,
    );
  });

  it("serve an app built from the file alone, and a bad entry stops it with its path", async () => {
    const app = await buildApp({
      file: {
        ...fileWith([{ plugin: "partner", credentials: { apiKey: SHARED } }]),
        api_keys: [{ key: "gk-file-only-key-0123456789" }],
        providers: [{ slug: "mock", provider: "mock" }],
      },
      logger: false,
    });
    try {
      const config = {
        input_guardrails: [{ deny: true, checks: [{ id: "partner.screen", parameters: { url: service.origin } }] }],
      };
      const answer = await app.inject({
        method: "POST",
        url: "/v1/chat/completions",
        headers: { "x-gateway-api-key": "gk-file-only-key-0123456789", "x-gateway-config": JSON.stringify(config) },
        payload: { model: "@mock/m", messages: [{ role: "user", content: "hello" }] },
      });
      expect(answer.statusCode).toBe(200);
      expect(service.requests.at(-1)?.headers.authorization).toBe(`Bearer ${SHARED}`);
      expect(answer.body).not.toContain(SHARED);
    } finally {
      await app.close();
    }
    await expect(
      buildApp({ file: fileWith([{ plugin: "partner", credentials: { apiKey: SHARED, extra: "x" } }]), logger: false }),
    ).rejects.toThrow("plugin_credentials[0].credentials.extra: is not a known key");
    await expect(buildApp({ file: fileWith([{ plugin: "nosuch", credentials: { a: "b" } }]), logger: false })).rejects.toThrow(
      'plugin_credentials[0].plugin: "nosuch" is not a loaded plugin',
    );
  });
});
