/**
 * The console's sign-in against the throttle of unknown keys (server/auth-throttle.ts), in real
 * headless Chromium: after ten keys that are not valid, the next attempt from the same address,
 * the right key included, is refused with a message that says why and when to try again.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultConsoleDir } from "../../server/console/plugin.js";
import { type ManagedTestGateway, startManaged } from "../support/managed.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);

let gw: ManagedTestGateway;
let browser: Browser;
let url: string;

describe.skipIf(!haveChromium)("the console's sign-in, throttled", () => {
  beforeAll(async () => {
    if (!existsSync(path.join(defaultConsoleDir(), "index.html"))) {
      throw new Error(`the console is not built (${defaultConsoleDir()}); run npm run build first`);
    }
    gw = await startManaged();
    url = await gw.app.listen({ host: "127.0.0.1", port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  });

  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  it("says a key is not valid ten times, then that too many were tried, even for the right key", async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${url}/console/`);
    const attempt = async (key: string) => {
      await page.fill("#key", key);
      const answered = page.waitForResponse((response) => response.url().endsWith("/admin/v1/me"));
      await page.click("button[type=submit]");
      const response = await answered;
      await expect.poll(() => page.locator("button[type=submit]").isEnabled()).toBe(true);
      return { status: response.status(), alert: await page.locator("[role=alert]").textContent() };
    };
    for (let i = 0; i < 10; i++) {
      expect(await attempt(`gg-wrong-key-${i}-0123456789abcdef`)).toEqual({ status: 401, alert: "That key is not valid." });
    }
    const refused = await attempt(gw.keys.admin_key);
    expect(refused.status).toBe(429);
    expect(refused.alert).toMatch(/too many unknown keys from this address; try again in \d+ s/);
    expect(await page.locator(".role").count()).toBe(0);
    const lines = gw.logLines.map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(lines.filter((line) => line.level === 40 && line.msg === "unknown API key")).toHaveLength(9);
  });
});
