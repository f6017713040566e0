import { describe, expect, it } from "vitest";
import { ENDPOINTS } from "../../../formats/endpoints.js";
import type { CallFacts, ProviderCall } from "../../kind.js";
import { checkProviderOptions } from "../../options.js";
import type { HttpProvider } from "../../provider.js";
import { azureAnswer, withRetryAfter } from "./answer.js";
import { azureAuthHeaders } from "./auth.js";
import { FilterFacts } from "./filters.js";
import { azureResponsesTarget, azureUrl } from "./target.js";

function endpoint(route: string) {
  const found = ENDPOINTS.find((e) => e.route === route);
  if (!found) throw new Error(route);
  return found;
}

function call(options: Record<string, unknown>, extra: Partial<HttpProvider> = {}, model = "gpt-4o"): ProviderCall {
  const provider: HttpProvider = {
    kind: "http",
    name: "azure-openai",
    format: "openai",
    options,
    baseUrl: "",
    trusted: true,
    headers: {},
    identity: "test",
    ...extra,
  };
  const body = { model, messages: [] };
  return {
    endpoint: endpoint("/v1/chat/completions"),
    body,
    text: JSON.stringify(body),
    stream: false,
    headers: { "content-type": "application/json", ...provider.headers },
    provider,
    dropParams: false,
  };
}

describe("the deployment URL", () => {
  it.each([
    [
      "resource and deployment_id",
      { resource_name: "contoso", deployment_id: "prod" },
      {},
      "https://contoso.openai.azure.com/openai/deployments/prod/chat/completions?api-version=2024-10-21",
    ],
    [
      "a model mapped to its deployment",
      { resource_name: "contoso", deployment_id: "prod", azure_deployments: { "gpt-4o": "four-o" } },
      {},
      "https://contoso.openai.azure.com/openai/deployments/four-o/chat/completions?api-version=2024-10-21",
    ],
    [
      "the model as deployment, a preview version",
      { resource_name: "contoso", api_version: "2025-04-01-preview" },
      {},
      "https://contoso.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2025-04-01-preview",
    ],
    [
      "a base_url (custom domain, Foundry)",
      { deployment_id: "prod" },
      { baseUrl: "https://ai.example.com/openai" },
      "https://ai.example.com/openai/deployments/prod/chat/completions?api-version=2024-10-21",
    ],
  ])("%s", (_name, options, extra, url) => {
    expect(azureUrl(call(options, extra), options)).toBe(url);
  });

  it("refuses a call with neither resource_name nor base_url, naming what is missing", () => {
    expect(() => azureUrl(call({ deployment_id: "prod" }), { deployment_id: "prod" })).toThrow(/resource_name/);
  });

  it("refuses a model that is not a deployment name when it names the deployment", () => {
    const options = { resource_name: "contoso" };
    expect(() => azureUrl(call(options, {}, "../admin"), options)).toThrow(expect.objectContaining({ code: "invalid_model" }));
  });
});

describe("options", () => {
  it.each([
    [{ resource_name: "contoso", api_version: "2024-10-21" }, undefined],
    [{ resource_name: "bad.host/evil" }, /resource_name/],
    [{ api_version: "latest" }, /api_version/],
    [{ azure_auth_mode: "entra", azure_entra_tenant_id: "t" }, /azure_entra_client_id|required/],
    [{ azure_auth_mode: "managed" }, /azure_auth_mode/],
    [{ azure_deployments: { "gpt-4o": "a/b" } }, /azure_deployments/],
    [{ deployments: {} }, /deployments/],
  ])("%j", (options, problem) => {
    const check = () => checkProviderOptions("azure-openai", options, "options");
    if (problem) expect(check).toThrow(problem);
    else expect(check).not.toThrow();
  });
});

describe("credentials", () => {
  it("sends the provider's key as api-key and drops the Authorization the call carried", async () => {
    const c = call(
      {},
      { secret: "0123456789abcdef0123456789abcdef", headers: { authorization: "Bearer 0123456789abcdef0123456789abcdef" } },
    );
    const headers = await azureAuthHeaders(c, {});
    expect(headers["api-key"]).toBe("0123456789abcdef0123456789abcdef");
    expect(headers.authorization).toBeUndefined();
  });

  it("sends a caller's Entra token (a JWT) as a bearer, and azure_ad_token likewise", async () => {
    const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJ4In0.c2ln";
    expect(await azureAuthHeaders(call({}, { headers: { authorization: `Bearer ${jwt}` } }), {})).toMatchObject({
      authorization: `Bearer ${jwt}`,
    });
    const given = await azureAuthHeaders(call({}, { secret: "key-1" }), { azure_ad_token: "tok-1" });
    expect(given).toMatchObject({ authorization: "Bearer tok-1" });
    expect(given["api-key"]).toBeUndefined();
  });

  it("refuses an authority host other than Microsoft's from a config, before any request", async () => {
    const options = {
      azure_auth_mode: "entra" as const,
      azure_entra_tenant_id: "t",
      azure_entra_client_id: "c",
      azure_entra_client_secret: "s",
      azure_authority_host: "http://169.254.169.254",
    };
    await expect(azureAuthHeaders(call(options), options)).rejects.toMatchObject({ code: "provider_not_configured" });
  });
});

describe("content filter verdicts", () => {
  it("keep each category's worst verdict over chunks, and note a content_filter finish", () => {
    const facts: CallFacts = {};
    const filters = new FilterFacts(facts);
    filters.answer({
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: { jailbreak: { filtered: false, detected: false } } }],
      choices: [],
    });
    filters.answer({ choices: [{ index: 0, content_filter_results: { violence: { filtered: false, severity: "low" } } }] });
    filters.answer({ choices: [{ index: 0, content_filter_results: { violence: { filtered: false, severity: "safe" } } }] });
    expect(facts.provider_filters).toEqual({
      source: "azure_content_filter",
      filtered: false,
      prompt: { jailbreak: { filtered: false, detected: false } },
      completion: { violence: { filtered: false, severity: "low" } },
    });
    filters.answer({ choices: [{ index: 0, finish_reason: "content_filter", content_filter_results: {} }] });
    expect(facts.provider_filters?.filtered).toBe(true);
  });

  it("read a refused prompt's innererror", () => {
    const facts: CallFacts = {};
    new FilterFacts(facts).error({
      error: {
        code: "content_filter",
        innererror: {
          code: "ResponsibleAIPolicyViolation",
          content_filter_result: { hate: { filtered: true, severity: "high" } },
        },
      },
    });
    expect(facts.provider_filters).toEqual({
      source: "azure_content_filter",
      filtered: true,
      prompt: { hate: { filtered: true, severity: "high" } },
    });
  });

  it("are read from a stream split anywhere, its bytes passed on unchanged", async () => {
    const event = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
    const text =
      event({
        choices: [],
        prompt_filter_results: [{ prompt_index: 0, content_filter_results: { sexual: { filtered: false, severity: "safe" } } }],
      }) +
      event({
        choices: [
          {
            index: 0,
            delta: { content: "hi" },
            finish_reason: "content_filter",
            content_filter_results: { violence: { filtered: true, severity: "medium" } },
          },
        ],
      }) +
      "data: [DONE]\n\n";
    const bytes = Buffer.from(text);
    const facts: CallFacts = {};
    const answer = azureAnswer(
      {
        status: 200,
        headers: {},
        contentType: "text/event-stream",
        text: () => Promise.resolve(text),
        async *stream() {
          for (let i = 0; i < bytes.length; i += 7) yield bytes.subarray(i, i + 7);
        },
        discard() {},
      },
      { ...call({}), facts },
    );
    const out: Buffer[] = [];
    for await (const part of answer.stream()) out.push(part);
    expect(Buffer.concat(out).toString()).toBe(text);
    expect(facts.provider_filters).toMatchObject({
      filtered: true,
      prompt: { sexual: { severity: "safe" } },
      completion: { violence: { filtered: true, severity: "medium" } },
    });
  });
});

describe("retry hints", () => {
  it.each([
    [{ "retry-after-ms": "1500", "retry-after": "2" }, "1.5"],
    [{ "x-ms-retry-after-ms": "250" }, "0.25"],
    [{ "retry-after": "3" }, "3"],
    [{ "retry-after-ms": "soon", "retry-after": "3" }, "3"],
  ])("%j gives retry-after %s", (headers, expected) => {
    expect(withRetryAfter(headers)["retry-after"]).toBe(expected);
  });
});

describe("Azure Responses id routes", () => {
  it("name the response beside the deployments, with no deployment and no body, the client's query after api-version", () => {
    const options = { resource_name: "acme", api_version: "2024-10-21" };
    const byId = {
      ...call(options),
      endpoint: endpoint("/v1/responses"),
      body: {},
      text: "",
      idRoute: { method: "GET" as const, path: "/resp_1/input_items", query: "limit=5" },
    };
    expect(azureResponsesTarget(byId, options)).toEqual({
      url: "https://acme.openai.azure.com/openai/responses/resp_1/input_items?api-version=2025-04-01-preview&limit=5",
      body: "",
    });
  });
});
