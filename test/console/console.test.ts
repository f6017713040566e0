/**
 * The console in real headless Chromium (Debian's package, driven by playwright-core) against a
 * gateway over a real socket and the fake upstream: each role sees only its pages, requests sent
 * through the gateway appear in the log list, a 446's log view shows each check's verdict, latency
 * and the feedback, a guardrail made with the generated form denies a request once a config
 * attaches it, and hostile names and bodies render as text. One browser for the file; the tests
 * run in order on one gateway, each building on the requests the ones before it sent.
 *
 * With CONSOLE_SCREENSHOTS_DIR set (`npm run docs:console`), the log list, a log view, the
 * guardrail editor, an answer's feedback, a dataset and two evaluations side by side are saved
 * there as PNG files.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import OpenAI from "openai";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultConsoleDir } from "../../server/console/plugin.js";
import { FakeUpstream } from "../support/fake-upstream.js";
import { AzureFake } from "../support/providers/azure.js";
import { type ManagedTestGateway, startManaged } from "../support/managed.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`console browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

const XSS_NAME = `<script>window.__xss = "name"</script><img src=x onerror="window.__xss='img'">`;
const XSS_BODY = `<img src=x onerror="window.__xss='body'"> hello`;

let gw: ManagedTestGateway;
let upstream: FakeUpstream;
let browser: Browser;
let url: string;
const keys = { org_admin: "", workspace_admin: "", member: "" };
let workspace: string;
const contexts: BrowserContext[] = [];
const policyErrors: string[] = [];
let shots: string;

async function api(method: string, route: string, body?: unknown, key = keys.org_admin) {
  const answer = await gw.call(method, route, { key, ...(body !== undefined && { body }) });
  if (answer.status >= 300) throw new Error(`${method} ${route}: ${answer.status} ${answer.text}`);
  return answer.body;
}

function client(config?: string): OpenAI {
  return new OpenAI({
    baseURL: `${url}/v1`,
    apiKey: "unused",
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": keys.workspace_admin, ...(config && { "x-gateway-config": config }) },
  });
}

/** Sends a chat request through the gateway; resolves to the status. */
async function send(content: string, config?: string): Promise<number> {
  try {
    const { response } = await client(config)
      .chat.completions.create({ model: "@up/gpt-test", messages: [{ role: "user", content }] })
      .withResponse();
    return response.status;
  } catch (error) {
    return (error as { status?: number }).status ?? 0;
  }
}

/** A signed-in page of a fresh browser context. */
async function signedIn(role: keyof typeof keys, viewport = { width: 1280, height: 860 }): Promise<Page> {
  const context = await browser.newContext({ viewport, locale: "en-US" });
  contexts.push(context);
  const page = await context.newPage();
  page.on("console", (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) policyErrors.push(message.text());
  });
  await page.goto(`${url}/console/`);
  await page.fill("#key", keys[role]);
  await page.click("button[type=submit]");
  await page.locator(`.role[data-role="${role}"]`).waitFor();
  return page;
}

async function navTitles(page: Page): Promise<string[]> {
  return page.locator("nav a").allTextContents();
}

async function waitForLogs(count: number): Promise<void> {
  await expect
    .poll(async () => (await api("GET", "/admin/v1/logs", undefined, keys.org_admin)).data.length, { timeout: 10_000 })
    .toBeGreaterThanOrEqual(count);
}

describe.skipIf(!haveChromium)("the console in Chromium", () => {
  beforeAll(async () => {
    if (!existsSync(path.join(defaultConsoleDir(), "index.html"))) {
      throw new Error(`the console is not built (${defaultConsoleDir()}); run npm run build first`);
    }
    shots = process.env.CONSOLE_SCREENSHOTS_DIR ?? mkdtempSync(path.join(tmpdir(), "guardgate-console-shots-"));
    upstream = await new FakeUpstream().start();
    gw = await startManaged();
    url = await gw.app.listen({ host: "127.0.0.1", port: 0 });
    keys.org_admin = gw.keys.admin_key;
    keys.member = gw.keys.api_key;
    workspace = gw.keys.workspace_id;
    keys.workspace_admin = (
      await api("POST", "/admin/v1/api-keys", { name: "Workspace admin", role: "workspace_admin", workspace_id: workspace })
    ).key;
    await api("PATCH", `/admin/v1/workspaces/${workspace}`, { settings: { log_bodies: true } });
    const integration = await api("POST", "/admin/v1/integrations", {
      slug: "up",
      name: "Fake upstream",
      provider: "openai",
      base_url: upstream.baseUrl,
      credentials: { api_key: "sk-held-by-the-gateway" },
      allowed_models: ["gpt-test"],
    });
    await api("PUT", `/admin/v1/integrations/${integration.id}/workspaces/${workspace}`, {});
    // A denying guardrail with two checks and feedback, attached by a config.
    await api("POST", `/admin/v1/workspaces/${workspace}/guardrails`, {
      id: "brief",
      name: "Brief prompts",
      side: "input",
      async: false,
      deny: true,
      checks: [
        { id: "default.wordCount", parameters: { maxWords: 3 } },
        { id: "default.characterCount", parameters: { maxCharacters: 1000 } },
      ],
      on_fail: { feedback: { value: -5, weight: 2 } },
    });
    await api("POST", `/admin/v1/workspaces/${workspace}/configs`, { id: "briefly", config: { input_guardrails: ["brief"] } });
    // A guardrail that fails without denying: 246.
    await api("POST", `/admin/v1/workspaces/${workspace}/guardrails`, {
      id: "terse",
      name: "Terse answers preferred",
      side: "input",
      async: false,
      checks: [{ id: "default.wordCount", parameters: { maxWords: 5 } }],
    });
    await api("POST", `/admin/v1/workspaces/${workspace}/configs`, { id: "gently", config: { input_guardrails: ["terse"] } });
    await api("POST", `/admin/v1/workspaces/${workspace}/guardrails`, {
      id: "hostile",
      name: XSS_NAME,
      checks: [{ id: "default.wordCount", parameters: { maxWords: 100 } }],
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

  it("serves the page and its assets with a strict policy, no sniffing, no framing, and long caching for hashed files", async () => {
    const page = await fetch(`${url}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("cache-control")).toBe("no-cache");
    const policy = page.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain("unsafe-inline");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle=/);
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${url}${script}`);
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    // Built for production wherever it was built: no source paths of the build machine inside.
    expect(await asset.text()).not.toContain(process.cwd());
    expect((await fetch(`${url}/console/assets/../../package.json`)).status).toBe(404);
    expect((await fetch(`${url}/console/nothing.js`)).status).toBe(404);
  });

  it("shows each role only its pages, as the admin API allows them", async () => {
    const member = await signedIn("member");
    expect(await navTitles(member)).toEqual(["Models"]);
    await member.locator("[data-model='@up/gpt-test']").waitFor();
    await member.locator("[data-model='@up/gpt-test'] button[role=tab]", { hasText: "openai" }).click();
    expect(await member.locator("[data-model='@up/gpt-test'] pre.snippet").textContent()).toContain(`baseURL: "${url}/v1"`);
    await member.goto(`${url}/console/#/logs`);
    await expect.poll(() => member.locator("main .error").textContent()).toContain("needs a stronger role");

    const admin = await signedIn("workspace_admin");
    const adminPages = await navTitles(admin);
    expect(adminPages).toEqual(
      expect.arrayContaining([
        "Logs",
        "Analytics",
        "Guardrails",
        "Configs",
        "Policies",
        "MCP servers",
        "Providers",
        "Plugin credentials",
        "API keys",
        "Models",
      ]),
    );
    expect(adminPages).not.toContain("Integrations");
    expect(adminPages).not.toContain("Workspaces");

    const owner = await signedIn("org_admin");
    expect(await navTitles(owner)).toEqual(expect.arrayContaining(["Integrations", "Workspaces", "Logs", "Models"]));
    await owner.goto(`${url}/console/#/integrations`);
    await owner.locator("tr[data-key]", { hasText: "up" }).first().waitFor();
    // Credentials are write-only: the page holds the slug but never the key.
    expect(await owner.content()).not.toContain("sk-held-by-the-gateway");
  });

  it("finds requests sent through the gateway in the log list, 446 marked, and filters them", async () => {
    expect(await send("Hello there")).toBe(200);
    expect(await send("far too many words for this guardrail", "briefly")).toBe(446);
    expect(await send("a few more words than five here", "gently")).toBe(246);
    expect(await send("Short and fine", "gently")).toBe(200);
    expect(await send(XSS_BODY)).toBe(200);
    await waitForLogs(5);
    const page = await signedIn("workspace_admin");
    await page.goto(`${url}/console/#/logs`);
    await page.locator("tr[data-log-id]").nth(4).waitFor();
    expect(await page.locator("tr[data-log-id] .badge[data-status='446']").count()).toBe(1);
    expect(await page.locator("tr[data-log-id] .badge[data-status='246']").count()).toBe(1);
    expect(await page.locator("tr[data-log-id] .badge[data-status='200']").count()).toBe(3);
    await page.screenshot({ path: path.join(shots, "log-list.png") });
    await page.fill("input[name=status]", "446");
    await page.click("form.filters button[type=submit]");
    await expect.poll(() => page.locator("tr[data-log-id]").count()).toBe(1);
    expect(page.url()).toContain("status=446");
  });

  it("opens a 446 and reads each check's verdict and latency and the feedback", async () => {
    const page = await signedIn("workspace_admin");
    await page.goto(`${url}/console/#/logs?status=446`);
    await page.locator("tr[data-log-id] a").first().click();
    const guardrail = page.locator("[data-guardrail='brief']");
    await guardrail.waitFor();
    // Denied on the input side: the upstream was never called, so there is no upstream latency.
    const upstreamLatency = page.locator(".facts > div", { has: page.locator("dt", { hasText: /^Upstream latency$/ }) });
    expect(await upstreamLatency.locator("dd").textContent()).toBe("–");
    expect(await page.locator("tr[data-attempt='0'] [data-field=latency]").textContent()).toContain("no upstream call");
    expect(await page.locator("[data-field='checks-passed']").textContent()).toBe("1");
    expect(await page.locator("[data-field='checks-failed']").textContent()).toBe("1");
    expect(await guardrail.locator("tr[data-check='default.wordCount'] [data-field=verdict]").textContent()).toBe("failed");
    expect(await guardrail.locator("tr[data-check='default.characterCount'] [data-field=verdict]").textContent()).toBe("passed");
    expect(await guardrail.locator("tr[data-check='default.wordCount'] [data-field=latency]").textContent()).toMatch(
      /^\d+(\.\d+)? ms$/,
    );
    expect(await guardrail.locator("tr[data-check='default.wordCount'] .explanation").textContent()).toMatch(/words/);
    expect(await guardrail.locator("[data-field=feedback-value]").textContent()).toBe("-5");
    expect(await guardrail.locator("[data-field=feedback-weight]").textContent()).toBe("2");
    expect(await guardrail.locator("[data-feedback=failed] li").allTextContents()).toEqual(["default.wordCount"]);
    expect(await guardrail.locator("[data-feedback=successful] li").allTextContents()).toEqual(["default.characterCount"]);
    expect(await guardrail.locator("[data-field=denied]").textContent()).toBe("denied");
    expect(await guardrail.locator("[data-field=source]").textContent()).toBe("From config briefly");
    await page.screenshot({ path: path.join(shots, "log-detail.png"), fullPage: true });

    // The same runs in the analytics charts: brief's failure in its bucket, a latency bar per check.
    await page.goto(`${url}/console/#/analytics`);
    await page.selectOption("select[name=subject]", "guardrail:brief");
    const bars = page.locator("svg[aria-label^='guardrail brief'] rect.bar-fail");
    await expect
      .poll(async () =>
        (await bars.evaluateAll((rects) => rects.map((r) => Number(r.getAttribute("height"))))).some((h) => h > 0),
      )
      .toBe(true);
    expect(
      await page.locator("svg[aria-label='Latency percentiles per check'] text", { hasText: "default.wordCount" }).count(),
    ).toBe(1);
  });

  it("creates a guardrail with the generated form, shows wrong parameters at the field, and denies once a config attaches it", async () => {
    const page = await signedIn("workspace_admin");
    await page.goto(`${url}/console/#/guardrails/new`);
    await page.locator("select[name=add-check]").waitFor();
    await page.fill("input[name=id]", "short-form");
    await page.fill("input[name=name]", "Short prompts");
    await page.check("input[name=deny]");
    await page.selectOption("select[name=add-check]", "default.wordCount");
    await page.click(".add-check button");
    const maxWords = "checks[0].parameters.maxWords";
    // Caught in the browser, before anything is sent.
    await page.fill(`input[name="${maxWords}"]`, "-1");
    await page.click("button[type=submit]");
    expect(await page.locator(`[data-error-for="${maxWords}"]`).textContent()).toContain(">= 0");
    // Caught by the gateway (the bounds are checked together there); its path puts it at the field.
    await page.fill("input[name='checks[0].parameters.minWords']", "5");
    await page.fill(`input[name="${maxWords}"]`, "2");
    await page.click("button[type=submit]");
    await expect
      .poll(() => page.locator(`[data-error-for="${maxWords}"]`).textContent())
      .toBe("must be at least the minimum (5)");
    await page.fill("input[name='checks[0].parameters.minWords']", "");
    await page.fill(`input[name="${maxWords}"]`, "3");
    await page.click("button[type=submit]");
    await expect.poll(() => page.url()).toContain("#/guardrails/short-form");
    await page.fill("textarea[name=sample]", "one two three four five");
    await page.click(".try-it button");
    await page.locator(".try-result[data-status='446']").waitFor();
    expect(await page.locator(".try-result [data-check='default.wordCount'] .verdict").textContent()).toBe("failed");
    await page.screenshot({ path: path.join(shots, "guardrail-editor.png"), fullPage: true });

    await page.goto(`${url}/console/#/configs/new`);
    await page.fill("input[name=id]", "short-config");
    await page.check("input[name='input_guardrails:short-form']");
    await page.click("button[type=submit]");
    await expect.poll(() => page.url()).toContain("#/configs/short-config");
    expect(await send("one two three four five", "short-config")).toBe(446);
    expect(await send("one two", "short-config")).toBe(200);
  });

  it("saves a workspace policy from a saved guardrail, which then denies a request with no config, and replays it", async () => {
    const page = await signedIn("workspace_admin");
    await page.goto(`${url}/console/#/policies/new`);
    await page.locator("input[name='input_guardrails:short-form']").waitFor();
    await page.fill("input[name=id]", "ws-short");
    await page.fill("input[name=name]", "Short prompts everywhere");
    await page.check("input[name='input_guardrails:short-form']");
    await page.click("button[type=submit]");
    await expect.poll(() => page.url()).toContain("#/policies/ws-short");
    expect(await send("one two three four five")).toBe(446);
    expect(await send("one two")).toBe(200);

    await page.goto(`${url}/console/#/policies`);
    const row = page.locator("tr[data-policy-id='ws-short']");
    await row.waitFor();
    expect(await row.locator("[data-mode]").textContent()).toBe("enforce");
    await page.goto(`${url}/console/#/policies/ws-short`);
    await page.click(".replay button");
    const result = page.locator(".replay-result");
    await result.waitFor();
    expect(Number(await result.getAttribute("data-denied"))).toBeGreaterThan(0);
    expect(await result.locator("tr[data-check='default.wordCount']").count()).toBe(1);
    await api("DELETE", "/admin/v1/policies/ws-short");
    expect(await send("one two three four five")).toBe(200);
  });

  it("renders a hostile guardrail name and logged body as text", async () => {
    const page = await signedIn("workspace_admin");
    await page.goto(`${url}/console/#/guardrails`);
    const row = page.locator("tr[data-guardrail-id='hostile']");
    await row.waitFor();
    expect(await row.locator("td a").textContent()).toBe(XSS_NAME);
    expect(await row.locator("img, script").count()).toBe(0);

    const logs = await api("GET", "/admin/v1/logs", undefined, keys.workspace_admin);
    const views = await Promise.all(
      logs.data.map((l: { id: string }) => api("GET", `/admin/v1/logs/${l.id}`, undefined, keys.workspace_admin)),
    );
    const withBody = views.find((v) => JSON.stringify(v.request ?? null).includes("onerror"))?.id;
    expect(withBody).toBeDefined();
    await page.goto(`${url}/console/#/logs/${withBody}`);
    await page.locator("pre.json").first().waitFor();
    expect(await page.locator("main").textContent()).toContain(JSON.stringify(XSS_BODY));
    expect(await page.locator("main img").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __xss?: string }).__xss)).toBeUndefined();
    expect(policyErrors).toEqual([]);
  });

  it("says which guardrail stopped a stream, and after how many characters", async () => {
    upstream.enqueue({ kind: "answer", text: `${"lorem ipsum dolor sit amet ".repeat(40)}forbidden and more words after it` });
    const config = JSON.stringify({
      output_guardrails: [{ id: "no-forbidden", deny: true, regexMatch: { rule: "forbidden", not: true } }],
    });
    const { data: stream, response } = await client(config)
      .chat.completions.create({ model: "@up/gpt-test", stream: true, messages: [{ role: "user", content: "go" }] })
      .withResponse();
    let received = "";
    await expect(
      (async () => {
        for await (const chunk of stream) received += chunk.choices[0]?.delta.content ?? "";
      })(),
    ).rejects.toThrow(/no-forbidden/);
    const id = response.headers.get("x-gateway-request-id") as string;
    await expect
      .poll(async () => (await gw.call("GET", `/admin/v1/logs/${id}`, { key: keys.workspace_admin })).status, { timeout: 10_000 })
      .toBe(200);
    const page = await signedIn("workspace_admin");
    await page.goto(`${url}/console/#/logs/${id}`);
    const stop = page.locator("[data-field=stream-stop]");
    await stop.waitFor();
    expect(await stop.textContent()).toBe(
      `Stream stopped by no-forbidden after ${received.length} characters had been sent (window mode).`,
    );
  });

  it("says what an Azure provider's content filter cut", async () => {
    const azure = await new AzureFake().start();
    try {
      const integration = await api("POST", "/admin/v1/integrations", {
        slug: "azure-up",
        name: "Azure fake",
        provider: "azure-openai",
        base_url: azure.baseUrl,
        credentials: { api_key: azure.apiKey, options: { deployment_id: "gpt-4o-prod" } },
      });
      await api("PUT", `/admin/v1/integrations/${integration.id}/workspaces/${workspace}`, {});
      azure.enqueue({ kind: "filtered-output" });
      const { response } = await client()
        .chat.completions.create({ model: "@azure-up/gpt-4o", messages: [{ role: "user", content: "tell me" }] })
        .withResponse();
      const id = response.headers.get("x-gateway-request-id") as string;
      await expect
        .poll(async () => (await gw.call("GET", `/admin/v1/logs/${id}`, { key: keys.workspace_admin })).status, {
          timeout: 10_000,
        })
        .toBe(200);
      const page = await signedIn("workspace_admin");
      await page.goto(`${url}/console/#/logs/${id}`);
      const filters = page.locator("[data-field=provider-filters]");
      await filters.waitFor();
      expect(await filters.textContent()).toBe(
        "The provider's content filter (azure_content_filter) filtered: completion violence (medium).",
      );
    } finally {
      await azure.close();
    }
  });

  it("shows feedback on an answer in its log view, makes a labelled dataset, switches a label, and sets two evaluations side by side", async () => {
    const { response } = await client()
      .chat.completions.create({ model: "@up/gpt-test", messages: [{ role: "user", content: "rate this answer" }] })
      .withResponse();
    const traceId = response.headers.get("x-gateway-request-id")!;
    await client().post("/feedback", { body: { trace_id: traceId, value: -7, metadata: { user: "u-9" } } });
    await gw.app.guardgate.drainLogs();
    await gw.managed.sink.flush();

    const page = await signedIn("workspace_admin");
    await page.goto(`${url}/console/#/logs/${traceId}`);
    await page.locator("[data-field=answer-feedback-value]").waitFor();
    expect(await page.locator("[data-field=answer-feedback-value]").textContent()).toBe("-7");
    expect(await page.locator("table.answer-feedback .tag").textContent()).toBe("user: u-9");
    await page.screenshot({ path: path.join(shots, "log-feedback.png"), fullPage: true });
    await page.goto(`${url}/console/#/logs?feedback_max=-5`);
    await expect.poll(() => page.locator("tr[data-log-id]").count()).toBe(1);

    await page.goto(`${url}/console/#/datasets`);
    await page.fill("form.dataset-form input[name=name]", "Console week");
    await page.fill("form.dataset-form input[name=label_rule]", "feedback <= -5 or guardrail:brief failed");
    await page.click("form.dataset-form button[type=submit]");
    await page.locator("[data-field=rows]").waitFor();
    const datasets = (await api("GET", `/admin/v1/datasets?workspace_id=${workspace}`, undefined, keys.workspace_admin)).data;
    const dataset = datasets.find((d: { name: string }) => d.name === "Console week");
    expect(await page.locator("[data-field=rows]").textContent()).toBe(String(dataset.rows));
    expect(dataset.positives).toBe(2);
    expect(await page.locator(`tr[data-row-log='${traceId}'] button.label-toggle`).textContent()).toBe("1");
    await page.screenshot({ path: path.join(shots, "dataset.png"), fullPage: true });
    const other = page.locator("tr[data-row-log] button.label-toggle[data-label='0']").first();
    await other.click();
    await expect.poll(() => page.locator("[data-field=positives]").textContent()).toBe("3");

    const run = async (name: string, maxWords: number) =>
      (
        await api(
          "POST",
          "/admin/v1/evals",
          {
            name,
            workspace_id: workspace,
            guardrail: { id: `words-${maxWords}`, checks: [{ id: "default.wordCount", parameters: { maxWords } }] },
            dataset_id: dataset.id,
          },
          keys.workspace_admin,
        )
      ).id as string;
    const first = await run("at most 3 words", 3);
    const second = await run("at most 6 words", 6);
    for (const id of [first, second]) {
      await expect
        .poll(async () => (await api("GET", `/admin/v1/evals/${id}`, undefined, keys.workspace_admin)).status)
        .toBe("done");
    }
    await page.goto(`${url}/console/#/evals`);
    await page.locator(`tr[data-eval-id='${first}'] input[type=checkbox]`).check();
    await page.locator(`tr[data-eval-id='${second}'] input[type=checkbox]`).check();
    await page.locator("button", { hasText: "Compare the two chosen" }).click();
    await page.locator("table.eval-compare").waitFor();
    expect(await page.locator("table.eval-compare th[data-run]").allTextContents()).toEqual([
      "at most 3 words",
      "at most 6 words",
    ]);
    const report = (await api("GET", `/admin/v1/evals/${first}`, undefined, keys.workspace_admin)).report;
    const f1 = report.results[0].scores.f1;
    expect(await page.locator("tr[data-score=f1] td").nth(1).textContent()).toBe(f1 === null ? "n/a" : f1.toFixed(4));
    expect(await page.locator("tr[data-confusion=true_positives] td").nth(1).textContent()).toBe(
      String(report.results[0].confusion.true_positives),
    );
    await page.screenshot({ path: path.join(shots, "eval-compare.png"), fullPage: true });
  });

  it("runs Try it with the organization admin key, in the workspace being looked at, and in no other", async () => {
    const page = await signedIn("org_admin");
    await page.goto(`${url}/console/#/guardrails/brief`);
    await page.fill("textarea[name=sample]", "one two three four five");
    await page.click(".try-it button");
    await page.locator(".try-result, .try-it .error").first().waitFor();
    expect(await page.locator(".try-it .error").allTextContents()).toEqual([]);
    expect(await page.locator(".try-result").getAttribute("data-status")).toBe("446");
    expect(await page.locator(".try-result [data-check='default.wordCount'] .verdict").textContent()).toBe("failed");

    const evaluate = { side: "input", guardrails: ["brief"], request: { messages: [{ role: "user", content: "hi" }] } };
    const elsewhere = await gw.call("POST", "/v1/hooks/evaluate", {
      key: keys.org_admin,
      body: evaluate,
      headers: { "x-gateway-workspace": "ws_of_another_organization" },
    });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.error.code).toBe("workspace_not_in_organization");
    // Models stay out of an organization admin key's reach, workspace named or not.
    const chat = await gw.call("POST", "/v1/chat/completions", {
      key: keys.org_admin,
      body: { model: "@up/gpt-test", messages: [{ role: "user", content: "hi" }] },
      headers: { "x-gateway-workspace": workspace },
    });
    expect(chat.status).toBe(403);
    expect(chat.body.error.code).toBe("admin_key_not_for_models");
  });

  it("makes a new record's id from its name when the id is left empty, as the hint says", async () => {
    const page = await signedIn("workspace_admin");
    await page.goto(`${url}/console/#/guardrails/new`);
    await page.locator("select[name=add-check]").waitFor();
    expect(await page.locator(".field", { has: page.locator("input[name=id]") }).textContent()).toContain(
      "made from the name when empty",
    );
    await page.fill("input[name=name]", "Named Élan guard");
    await page.selectOption("select[name=add-check]", "default.wordCount");
    await page.click(".add-check button");
    await page.fill("input[name='checks[0].parameters.maxWords']", "50");
    await page.click("button[type=submit]");
    await expect.poll(() => page.url()).toContain("#/guardrails/named-elan-guard");

    await page.goto(`${url}/console/#/configs/new`);
    await page.fill("input[name=name]", "Gentle config");
    expect(await page.getAttribute("input[name=id]", "placeholder")).toBe("gentle-config");
    await page.click("button[type=submit]");
    await expect.poll(() => page.url()).toContain("#/configs/gentle-config");
    expect((await api("GET", `/admin/v1/workspaces/${workspace}/configs/gentle-config`)).name).toBe("Gentle config");
  });

  it("labels only a failed guardrail as denying or not, and says which policy and mode a result came from", async () => {
    await api("POST", "/admin/v1/policies", {
      id: "watch",
      name: "Watch long prompts",
      mode: "monitor",
      workspace_id: workspace,
      input_guardrails: ["terse"],
    });
    const { response } = await client("short-config")
      .chat.completions.create({ model: "@up/gpt-test", messages: [{ role: "user", content: "one two" }] })
      .withResponse();
    expect(response.status).toBe(200);
    await api("DELETE", "/admin/v1/policies/watch");
    const id = response.headers.get("x-gateway-request-id") as string;
    await expect
      .poll(async () => (await gw.call("GET", `/admin/v1/logs/${id}`, { key: keys.workspace_admin })).status, { timeout: 10_000 })
      .toBe(200);
    await expect
      .poll(async () => (await api("GET", `/admin/v1/logs/${id}`, undefined, keys.workspace_admin)).guardrail_results.length)
      .toBe(2);
    const page = await signedIn("workspace_admin");
    await page.goto(`${url}/console/#/logs/${id}`);
    // short-form denies on failure, but it passed: nothing was denied, and nothing says "deny off".
    const passing = page.locator("[data-guardrail='short-form']");
    await passing.waitFor();
    expect(await passing.locator(".verdict").first().textContent()).toBe("passed");
    expect(await passing.locator("[data-field=denied]").count()).toBe(0);
    expect(await passing.textContent()).not.toContain("deny off");
    expect(await passing.locator("[data-field=source]").textContent()).toBe("From config short-config");
    // The monitor policy's guardrail names its policy and its mode.
    const watched = page.locator("[data-guardrail='terse']");
    expect(await watched.locator("[data-field=source] a[data-policy='watch']").textContent()).toBe("Watch long prompts");
    expect(await watched.locator("[data-field=monitor]").textContent()).toContain("monitor");
  });

  it("shows a fallback's attempts each field in its column, and keeps long values inside the card", async () => {
    upstream.enqueue({ kind: "json", status: 503, body: { error: { message: "overloaded", type: "server_error" } } });
    // The first target denies on its input side, the second meets an overloaded upstream, the third answers.
    const config = JSON.stringify({
      strategy: { mode: "fallback", on_status_codes: [446, 503] },
      targets: [
        { provider: "@up", input_guardrails: [{ id: "no-fall", deny: true, regexMatch: { rule: "fall", not: true } }] },
        { provider: "@up" },
        { provider: "@up" },
      ],
    });
    const { response } = await client(config)
      .chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "fall back please" }] })
      .withResponse();
    expect(response.status).toBe(200);
    const id = response.headers.get("x-gateway-request-id") as string;
    await expect
      .poll(async () => (await gw.call("GET", `/admin/v1/logs/${id}`, { key: keys.workspace_admin })).status, { timeout: 10_000 })
      .toBe(200);
    const page = await signedIn("workspace_admin");
    await page.goto(`${url}/console/#/logs/${id}`);
    const table = page.locator("table.attempts");
    await table.waitFor();
    expect(await table.locator("tbody tr").count()).toBe(3);
    expect(await table.textContent()).not.toContain("undefined");
    // Nothing widens the card: its frame needs no sideways scrolling, and the page none either.
    const frame = page.locator(".table-wrap", { has: table });
    expect(await frame.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    expect(
      await page.evaluate(() => {
        const view = globalThis as unknown as { innerWidth: number; document: { documentElement: { scrollWidth: number } } };
        return view.document.documentElement.scrollWidth - view.innerWidth;
      }),
    ).toBeLessThanOrEqual(0);
    expect(await table.locator("tbody .badge").allTextContents()).toEqual(["446", "503", "200"]);
    expect(await table.locator("tr[data-attempt='0'] [data-field=guardrails]").textContent()).toBe("no-fall failed");
    expect(await table.locator("tr[data-attempt='0'] [data-field=latency]").textContent()).toContain("no upstream call");
    expect(await table.locator("tr[data-attempt='0'] [data-field=error]").textContent()).toContain("hooks_failed");
    expect(await table.locator("tr[data-attempt='1'] [data-field=latency]").textContent()).not.toContain("no upstream call");
    expect(await table.locator("tr[data-attempt='2'] [data-field=error]").textContent()).toBe("–");
    expect(await table.locator("tr[data-attempt='2'] [data-field=model]").textContent()).toBe("gpt-test");
  });

  for (const viewport of [
    { width: 1440, height: 900 },
    { width: 390, height: 844 },
  ]) {
    it(`draws analytics with dated axes and chart text of the page's size at ${viewport.width} px wide`, async () => {
      const page = await signedIn("workspace_admin", viewport);
      await page.goto(`${url}/console/#/analytics`);
      await page.selectOption("select[name=subject]", "guardrail:brief");
      await page.locator("svg[aria-label^='guardrail brief']").waitFor();
      // The size each label is drawn at on screen: its font size times the SVG's scale.
      const sizes = await page.locator(".chart svg text").evaluateAll((texts) =>
        texts.map((t) => {
          const text = t as unknown as { getScreenCTM(): { a: number } | null };
          const style = (globalThis as unknown as { getComputedStyle(e: unknown): { fontSize: string } }).getComputedStyle(t);
          return Number.parseFloat(style.fontSize) * (text.getScreenCTM()?.a ?? 0);
        }),
      );
      expect(sizes.length).toBeGreaterThan(3);
      for (const size of sizes) expect(size).toBeCloseTo(12, 1);
      const from = page.locator("svg[aria-label^='guardrail brief'] text[data-axis=from]");
      // A month and day as well as the time: a 7-day range spans days.
      expect(await from.textContent()).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{2}:\d{2}/);
      expect(await page.locator("svg[aria-label^='guardrail brief'] text[data-axis=to]").textContent()).toMatch(
        /^[A-Z][a-z]{2} \d{1,2}, \d{2}:\d{2}/,
      );
      if (viewport.width === 390) {
        // The latency chart stays inside its frame on a phone.
        const overflow = await page
          .locator("svg[aria-label='Latency percentiles per check']")
          .evaluate((svg) => svg.getBoundingClientRect().right - (svg.parentElement?.getBoundingClientRect().right ?? 0));
        expect(overflow).toBeLessThanOrEqual(0);
      }
    });
  }

  it("fits a phone's width: the pages fold into a menu and tables scroll in their frame", async () => {
    const page = await signedIn("workspace_admin", { width: 390, height: 844 });
    await page.goto(`${url}/console/#/logs`);
    await page.locator("tr[data-log-id]").first().waitFor();
    expect(await page.locator("nav a").first().isVisible()).toBe(false);
    await page.click("button.menu");
    expect(await page.locator("nav a", { hasText: "Guardrails" }).isVisible()).toBe(true);
    const overflow = await page.evaluate(() => {
      const view = globalThis as unknown as { innerWidth: number; document: { documentElement: { scrollWidth: number } } };
      return view.document.documentElement.scrollWidth - view.innerWidth;
    });
    expect(overflow).toBeLessThanOrEqual(0);
    if (process.env.CONSOLE_SCREENSHOTS_DIR) {
      for (const name of [
        "log-list.png",
        "log-detail.png",
        "guardrail-editor.png",
        "log-feedback.png",
        "dataset.png",
        "eval-compare.png",
      ]) {
        expect(statSync(path.join(shots, name)).size).toBeGreaterThan(10_000);
      }
    }
  });
});
