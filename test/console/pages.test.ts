/**
 * The console's pages as a user reads them, in real headless Chromium against a gateway over a real
 * socket and the fake upstream: a log view lists the failed guardrail first and no empty feedback;
 * an unknown route is a page not found; the page loads with no 404 (a favicon); dark mode follows
 * the system and a toggle; the navigation fits one line at 1440 px; the Configs list shows a
 * config's guardrails as rows; "Try it" evaluations are marked in the request log; and the
 * Evaluations page starts a run on a dataset, opens its report, and lists its dataset and F1.
 * Screenshots go to CONSOLE_SCREENSHOTS_DIR when it is set.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import OpenAI from "openai";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultConsoleDir } from "../../server/console/plugin.js";
import { FakeUpstream } from "../support/fake-upstream.js";
import { type ManagedTestGateway, startManaged } from "../support/managed.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);

let gw: ManagedTestGateway;
let upstream: FakeUpstream;
let browser: Browser;
let url: string;
let workspace: string;
let adminKey: string;
let workspaceKey: string;
let shots: string;
const contexts: BrowserContext[] = [];

async function api(method: string, route: string, body?: unknown, key = adminKey) {
  const answer = await gw.call(method, route, { key, ...(body !== undefined && { body }) });
  if (answer.status >= 300) throw new Error(`${method} ${route}: ${answer.status} ${answer.text}`);
  return answer.body;
}

/** Sends a chat request through the gateway with a config; resolves to the status and request id. */
async function send(content: string, config: string): Promise<{ status: number; id: string | null }> {
  const client = new OpenAI({
    baseURL: `${url}/v1`,
    apiKey: "unused",
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": workspaceKey, "x-gateway-config": config },
  });
  try {
    const { response } = await client.chat.completions
      .create({ model: "@up/gpt-test", messages: [{ role: "user", content }] })
      .withResponse();
    return { status: response.status, id: response.headers.get("x-gateway-request-id") };
  } catch (error) {
    const failure = error as { status?: number; headers?: Headers };
    return { status: failure.status ?? 0, id: failure.headers?.get("x-gateway-request-id") ?? null };
  }
}

/** A signed-in page (the organization admin key unless told) of a fresh context. */
async function signedIn(
  options: { viewport?: { width: number; height: number }; colorScheme?: "light" | "dark"; key?: string } = {},
): Promise<Page> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 860 },
    locale: "en-US",
    colorScheme: options.colorScheme ?? "light",
  });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${url}/console/`);
  await page.fill("#key", options.key ?? adminKey);
  await page.click("button[type=submit]");
  await page.locator(".role").waitFor();
  return page;
}

/** The page's background colour, as the browser computed it. */
const background = (page: Page) =>
  page
    .locator("html")
    .evaluate(
      (html) =>
        (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(html)
          .backgroundColor,
    );

describe.skipIf(!haveChromium)("console pages in Chromium", () => {
  beforeAll(async () => {
    if (!existsSync(path.join(defaultConsoleDir(), "index.html"))) {
      throw new Error(`the console is not built (${defaultConsoleDir()}); run npm run build first`);
    }
    shots = process.env.CONSOLE_SCREENSHOTS_DIR ?? mkdtempSync(path.join(tmpdir(), "guardgate-console-pages-"));
    upstream = await new FakeUpstream().start();
    gw = await startManaged();
    url = await gw.app.listen({ host: "127.0.0.1", port: 0 });
    adminKey = gw.keys.admin_key;
    workspace = gw.keys.workspace_id;
    workspaceKey = (
      await api("POST", "/admin/v1/api-keys", { name: "Workspace admin", role: "workspace_admin", workspace_id: workspace })
    ).key;
    await api("PATCH", `/admin/v1/workspaces/${workspace}`, { settings: { log_bodies: true } });
    const integration = await api("POST", "/admin/v1/integrations", {
      slug: "up",
      name: "Fake upstream",
      provider: "openai",
      base_url: upstream.baseUrl,
      credentials: { api_key: "sk-held" },
      allowed_models: ["gpt-test"],
    });
    await api("PUT", `/admin/v1/integrations/${integration.id}/workspaces/${workspace}`, {});
    const guardrail = (id: string, maxWords: number, extra: object = {}) =>
      api("POST", `/admin/v1/workspaces/${workspace}/guardrails`, {
        id,
        name: id,
        side: "input",
        async: false,
        checks: [{ id: "default.wordCount", parameters: { maxWords } }],
        ...extra,
      });
    await guardrail("roomy", 100);
    await guardrail("spacious", 200);
    await guardrail("tidy", 500, { side: "output" });
    await guardrail("brief", 3, { deny: true, on_fail: { feedback: { value: -5, weight: 1 } } });
    // The failing guardrail runs last, below two that pass.
    await api("POST", `/admin/v1/workspaces/${workspace}/configs`, {
      id: "three",
      config: {
        input_guardrails: ["roomy", "spacious", "brief"],
        output_guardrails: [{ id: "tidy", deny: false }, { "default.characterCount": { maxCharacters: 5000 } }],
      },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await browser?.close();
    await gw?.close();
    await upstream?.close();
    if (!process.env.CONSOLE_SCREENSHOTS_DIR && shots) rmSync(shots, { recursive: true, force: true });
  });

  it("lists the failed guardrail first in a log view, and says nothing of feedback where there is none", async () => {
    const denied = await send("far too many words for the brief guardrail", "three");
    expect(denied.status).toBe(446);
    await gw.app.guardgate.drainLogs();
    await gw.managed.sink.flush();
    const page = await signedIn();
    await page.goto(`${url}/console/#/logs/${denied.id}`);
    await page.locator("article.guardrail").first().waitFor();
    const order = await page
      .locator("article.guardrail")
      .evaluateAll((cards) => cards.map((c) => c.getAttribute("data-guardrail")));
    expect(order).toEqual(["brief", "roomy", "spacious"]);
    expect(await page.getByText("No feedback.").count()).toBe(0);
    expect(await page.locator("article.guardrail h4", { hasText: "Feedback" }).count()).toBe(1);
    expect(await page.locator("[data-guardrail='brief'] [data-field=feedback-value]").textContent()).toBe("-5");
    await page.screenshot({ path: path.join(shots, "log-failed-first.png") });
  });

  it("shows a page not found for an unknown route", async () => {
    const page = await signedIn();
    await page.goto(`${url}/console/#/no-such-page`);
    await page.locator("[data-page=not-found]").waitFor();
    expect(await page.locator("main h1").textContent()).toBe("Page not found");
    expect(await page.locator("nav a.current").count()).toBe(0);
    expect(await page.locator("table.logs").count()).toBe(0);
    await page.screenshot({ path: path.join(shots, "not-found.png") });
  });

  it("loads with no failed request and no console error: the page names its favicon", async () => {
    const page = await signedIn();
    const failed: string[] = [];
    page.on("response", (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
    page.on("console", (message) => {
      if (message.type() === "error") failed.push(message.text());
    });
    await page.reload();
    await page.locator(".role").waitFor();
    await page.waitForLoadState("networkidle");
    const icon = await page.locator("link[rel=icon]").getAttribute("href");
    expect(icon).toMatch(/\/console\/assets\/.+\.svg$/);
    expect((await fetch(new URL(icon!, url))).status).toBe(200);
    expect(failed).toEqual([]);
  });

  it("follows the system's dark mode, and a toggle switches it and is remembered", async () => {
    const dark = await signedIn({ colorScheme: "dark" });
    expect(await background(dark)).toBe("rgb(17, 22, 31)");
    await dark.screenshot({ path: path.join(shots, "dark-logs.png") });
    const light = await signedIn({ colorScheme: "light" });
    expect(await background(light)).toBe("rgb(247, 248, 250)");
    await light.click(".theme-toggle");
    expect(await background(light)).toBe("rgb(17, 22, 31)");
    await light.reload();
    await light.locator(".role").waitFor();
    expect(await background(light)).toBe("rgb(17, 22, 31)");
    await light.click(".theme-toggle");
    expect(await background(light)).toBe("rgb(247, 248, 250)");
  });

  it("fits the organization admin's navigation on one line at 1440 px", async () => {
    const page = await signedIn({ viewport: { width: 1440, height: 900 } });
    const links = page.locator("nav a");
    expect(await links.count()).toBeGreaterThanOrEqual(13);
    const boxes = await links.evaluateAll((all) =>
      all.map((a) => a.getBoundingClientRect()).map((r) => ({ top: r.top, right: r.right })),
    );
    // One line, inside the window, and the header no taller than two rows.
    expect(new Set(boxes.map((b) => Math.round(b.top))).size).toBe(1);
    expect(Math.max(...boxes.map((b) => b.right))).toBeLessThanOrEqual(1440);
    expect((await page.locator("header.top").boundingBox())!.height).toBeLessThan(100);
    await page.screenshot({ path: path.join(shots, "nav-1440.png"), clip: { x: 0, y: 0, width: 1440, height: 120 } });
  });

  it("shows a config's guardrails as rows on the Configs page, not as JSON", async () => {
    const page = await signedIn();
    await page.goto(`${url}/console/#/configs`);
    const row = page.locator("tr[data-config-id='three']");
    await row.waitFor();
    expect(await row.locator("td[data-field=input_guardrails] li").allTextContents()).toEqual(["roomy", "spacious", "brief"]);
    expect(await row.locator("td[data-field=output_guardrails] li").allTextContents()).toEqual([
      "tidy (with overrides)",
      "inline: default.characterCount",
    ]);
    expect(await row.textContent()).not.toContain('["');
    await page.screenshot({ path: path.join(shots, "configs.png") });
  });

  it("marks Try it evaluations in the request log, and no others", async () => {
    const page = await signedIn();
    await page.goto(`${url}/console/#/guardrails/brief`);
    await page.fill("textarea[name=sample]", "one two three four five");
    await page.click(".try-it button");
    await page.locator(".try-result").waitFor();
    const other = await gw.call("POST", "/v1/hooks/evaluate", {
      key: workspaceKey,
      body: { side: "input", guardrails: ["brief"], request: { messages: [{ role: "user", content: "hi" }] } },
    });
    expect(other.status).toBe(200);
    await gw.app.guardgate.drainLogs();
    await gw.managed.sink.flush();
    await page.goto(`${url}/console/#/logs`);
    await page.locator("tr[data-log-id]").first().waitFor();
    const hookRows = page.locator("tr[data-log-id]", { hasText: "/v1/hooks/evaluate" });
    await expect.poll(() => hookRows.count()).toBe(2);
    expect(await page.locator("tr[data-log-id] [data-field=try-it]").count()).toBe(1);
    // The newest is the application's evaluation; the one before it, Try it's.
    expect(await hookRows.nth(0).locator("[data-field=try-it]").count()).toBe(0);
    expect(await hookRows.nth(1).locator("[data-field=try-it]").textContent()).toBe("Try it");
    await page.screenshot({ path: path.join(shots, "logs-try-it.png") });
  });

  it("starts an evaluation on a dataset from the page, opens its report, and lists its dataset and F1", async () => {
    await send("short", "three");
    await send("a much longer prompt than three words", "three");
    await gw.app.guardgate.drainLogs();
    await gw.managed.sink.flush();
    const dataset = await api("POST", "/admin/v1/datasets", {
      workspace_id: workspace,
      name: "Prompts",
      label_rule: "guardrail:brief failed",
    });
    const page = await signedIn();
    await page.goto(`${url}/console/#/datasets/${dataset.id}`);
    await page.click("[data-field=evaluate]");
    await page.locator("form.eval-start select[name=dataset]").waitFor();
    expect(await page.locator("form.eval-start select[name=dataset]").inputValue()).toBe(dataset.id);
    await page.selectOption("form.eval-start select[name=subject]", "guardrail:brief");
    await page.fill("form.eval-start input[name=name]", "brief on prompts");
    await page.click("form.eval-start button[type=submit]");
    await expect.poll(() => page.url()).toMatch(/#\/evals\/ev_/);
    await expect.poll(() => page.locator("[data-field=eval-status]").textContent(), { timeout: 20_000 }).toBe("done");
    const id = page.url().split("#/evals/")[1]!;
    const report = (await api("GET", `/admin/v1/evals/${id}`)).report;
    const f1 = report.results[0].scores.f1 as number | null;
    expect(await page.locator("[data-score=f1] dd").textContent()).toBe(f1 === null ? "n/a" : f1.toFixed(4));
    expect(await page.locator("[data-confusion=true_positives]").textContent()).toBe(
      String(report.results[0].confusion.true_positives),
    );
    // A handful of rows: the report says F1 means little here.
    expect(await page.locator("[data-field=eval-warning]").textContent()).toContain("below 30 of each");
    await page.screenshot({ path: path.join(shots, "eval-report.png"), fullPage: true });

    await page.click("a:has-text('← Evaluations')");
    const row = page.locator(`tr[data-eval-id='${id}']`);
    await row.waitFor();
    expect(await row.locator("[data-field=source]").textContent()).toBe(`dataset ${dataset.id} (Prompts)`);
    expect(await row.locator("[data-field=rows]").textContent()).toBe(String(dataset.rows));
    expect(await row.locator("[data-field=f1]").textContent()).toBe(f1 === null ? "n/a" : f1.toFixed(4));
    await page.screenshot({ path: path.join(shots, "evals.png"), fullPage: true });
  });
});
