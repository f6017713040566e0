/**
 * Records the config file manages, in real headless Chromium: the guardrail, config and policy
 * the file seeds carry a "from config file" badge naming the file, in their lists and editors;
 * a record made in the console carries none; deleting the file's guardrail from the list shows the
 * gateway's refusal (409 file_managed, naming the file) and the record stays.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultConsoleDir } from "../../server/console/plugin.js";
import { type RunningManagedServer, startManagedServer } from "../../server/lifecycle/start.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);

let dir: string;
let configPath: string;
let server: RunningManagedServer;
let browser: Browser;
let adminKey: string;
let workspace: string;

describe.skipIf(!haveChromium)("the console's marks of file-managed records", { timeout: 120_000 }, () => {
  beforeAll(async () => {
    if (!existsSync(path.join(defaultConsoleDir(), "index.html"))) {
      throw new Error(`the console is not built (${defaultConsoleDir()}); run npm run build first`);
    }
    dir = mkdtempSync(path.join(tmpdir(), "guardgate-console-file-"));
    configPath = path.join(dir, "gateway.yaml");
    writeFileSync(
      configPath,
      [
        "guardrails:",
        "  - id: from-file",
        "    name: From the file",
        "    side: input",
        "    checks: [{ id: default.wordCount, parameters: { maxWords: 100 } }]",
        "configs:",
        "  - id: file-config",
        "    config: { input_guardrails: [from-file] }",
        "policies:",
        "  - id: file-policy",
        "    name: File policy",
        "    input_guardrails:",
        "      - id: short",
        "        checks: [{ id: default.wordCount, parameters: { maxWords: 500 } }]",
        "",
      ].join("\n"),
    );
    server = await startManagedServer({
      port: 0,
      host: "127.0.0.1",
      configPath,
      dataDir: path.join(dir, "data"),
      env: {},
      logLevel: "silent",
    });
    const keys = JSON.parse(readFileSync(path.join(dir, "data", "initial-keys.json"), "utf8"));
    adminKey = keys.admin_key;
    workspace = keys.workspace_id;
    const made = await fetch(`${server.url}/admin/v1/workspaces/${workspace}/guardrails`, {
      method: "POST",
      headers: { "x-gateway-api-key": adminKey, "content-type": "application/json" },
      body: JSON.stringify({
        id: "from-console",
        name: "Made here",
        checks: [{ id: "default.wordCount", parameters: { maxWords: 9 } }],
      }),
    });
    expect(made.status).toBe(201);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function signedIn(): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/console/`);
    await page.fill("#key", adminKey);
    await page.click("button[type=submit]");
    await page.locator(".role").waitFor();
    return page;
  }

  it("badges the file's guardrail, config and policy, not the console's own, and names the file", async () => {
    const page = await signedIn();
    await page.goto(`${server.url}/console/#/guardrails`);
    const fileRow = page.locator("[data-guardrail-id='from-file']");
    await fileRow.waitFor();
    await expect.poll(() => fileRow.locator(".badge.file").textContent()).toBe("from config file");
    expect(await fileRow.locator(".badge.file").getAttribute("title")).toContain(configPath);
    expect(await page.locator("[data-guardrail-id='from-console'] .badge.file").count()).toBe(0);

    await page.goto(`${server.url}/console/#/guardrails/from-file`);
    await expect.poll(() => page.locator(".page-head .badge.file").getAttribute("data-managed-file")).toBe(configPath);

    await page.goto(`${server.url}/console/#/configs`);
    await expect.poll(() => page.locator("[data-config-id='file-config'] .badge.file").count()).toBe(1);
    await page.goto(`${server.url}/console/#/policies`);
    await expect.poll(() => page.locator("[data-policy-id='file-policy'] .badge.file").count()).toBe(1);
  });

  it("a delete of the file's guardrail shows the gateway's refusal naming the file, and the row stays", async () => {
    const page = await signedIn();
    page.on("dialog", (dialog) => void dialog.accept());
    await page.goto(`${server.url}/console/#/guardrails`);
    const row = page.locator("[data-guardrail-id='from-file']");
    await row.waitFor();
    const answered = page.waitForResponse((response) => response.request().method() === "DELETE");
    await row.locator("button", { hasText: "Delete" }).click();
    expect((await answered).status()).toBe(409);
    await expect
      .poll(() => page.locator("main .error").first().textContent())
      .toContain(`managed by the config file ${configPath}`);
    const kept = await fetch(`${server.url}/admin/v1/workspaces/${workspace}/guardrails/from-file`, {
      headers: { "x-gateway-api-key": adminKey },
    });
    expect(kept.status).toBe(200);
  });
});
