/**
 * Azure OpenAI end to end: the official `openai` client, pointed at guardgate, reaches the Azure
 * contract fake (test/support/providers/azure.ts) through provider records of kind
 * `azure-openai`: deployment URLs and api-version, the api key or an Entra ID token, chat with a
 * tool call, completions and embeddings, streamed and not; the official `@anthropic-ai/sdk`
 * client's Messages translated to the deployment's chat completions; content filter results kept in the
 * answers and recorded in the log; Azure's errors and retry hints; fallback on 429; and no key,
 * secret or token anywhere a client or a log reader could see it.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI, { APIError } from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RequestLogRecord } from "../../server/logs/record.js";
import { forgetAzureTokens } from "../../server/providers/kinds/azure/auth.js";
import { FakeUpstream } from "../support/fake-upstream.js";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";
import { AzureFake } from "../support/providers/azure.js";
import {
  BEDROCK_ACCESS_KEY_ID,
  BEDROCK_REGION,
  BEDROCK_SECRET_ACCESS_KEY,
  BEDROCK_SESSION_TOKEN,
  type BedrockFake,
  startBedrockFake,
} from "../support/providers/bedrock.js";

let azure: AzureFake;
let backup: FakeUpstream;
let bedrock: BedrockFake;
let gateway: TestGateway;
/** Every answer and error body a client received, for the secrets test. */
const seen: string[] = [];

const BACKUP_KEY = "sk-backup-server-held-0001";
const WRONG_SECRET = "entra-wrong-secret-~Xy7Z~0123456789";

beforeAll(async () => {
  azure = await new AzureFake().start();
  backup = await new FakeUpstream().start();
  bedrock = await startBedrockFake();
  const entra = {
    azure_auth_mode: "entra",
    azure_entra_tenant_id: azure.tenant,
    azure_entra_client_id: azure.clientId,
    azure_authority_host: azure.origin,
  };
  gateway = await startGateway({
    file: {
      providers: [
        {
          slug: "azure",
          provider: "azure-openai",
          base_url: azure.baseUrl,
          api_key: azure.apiKey,
          options: {
            azure_deployments: { "gpt-4o": "gpt-4o-prod", "text-embedding-3-small": "text-embed" },
            deployment_id: "instruct-prod",
          },
        },
        {
          slug: "azure-entra",
          provider: "azure-openai",
          base_url: azure.baseUrl,
          options: { ...entra, azure_entra_client_secret: azure.clientSecret, deployment_id: "gpt-4o-prod" },
        },
        {
          slug: "azure-bad-secret",
          provider: "azure-openai",
          base_url: azure.baseUrl,
          options: { ...entra, azure_entra_client_secret: WRONG_SECRET, deployment_id: "gpt-4o-prod" },
        },
        { slug: "azure-by-model", provider: "azure-openai", base_url: azure.baseUrl, api_key: azure.apiKey },
        { slug: "backup", provider: "openai", base_url: backup.baseUrl, api_key: BACKUP_KEY },
        {
          slug: "bedrock",
          provider: "bedrock",
          base_url: bedrock.origin,
          options: {
            aws_access_key_id: BEDROCK_ACCESS_KEY_ID,
            aws_secret_access_key: BEDROCK_SECRET_ACCESS_KEY,
            aws_session_token: BEDROCK_SESSION_TOKEN,
            aws_region: BEDROCK_REGION,
          },
        },
      ],
    },
  });
});

afterAll(async () => {
  await gateway.close();
  await azure.close();
  await backup.close();
  await bedrock.close();
});

beforeEach(() => {
  azure.reset();
  backup.reset();
  bedrock.reset();
});

function client(config?: unknown): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: "sk-unused-by-slug-providers",
    maxRetries: 0,
    defaultHeaders: {
      "x-gateway-api-key": API_KEY,
      ...(config !== undefined && { "x-gateway-config": JSON.stringify(config) }),
    },
  });
}

const WEATHER_TOOL = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "The weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

function logOf(id: string | null): Promise<RequestLogRecord> {
  return gateway.logs.waitFor((record) => record.id === id);
}

type Annotated = {
  prompt_filter_results?: Array<{ content_filter_results: Record<string, unknown> }>;
  choices: Array<{ content_filter_results?: Record<string, { filtered: boolean; severity?: string }> }>;
};

async function caught(promise: Promise<unknown>): Promise<APIError> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(APIError);
  seen.push(JSON.stringify((error as APIError).error ?? null), String((error as APIError).message));
  return error as APIError;
}

describe("chat with a tool call", () => {
  it("goes to the model's deployment with api-version and api-key, and keeps the content filter results", async () => {
    const { data, response } = await client()
      .chat.completions.create({
        model: "@azure/gpt-4o",
        messages: [{ role: "user", content: "weather in Paris?" }],
        tools: [WEATHER_TOOL],
      })
      .withResponse();
    seen.push(JSON.stringify(data));
    expect(response.status).toBe(200);
    const call = data.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === "function" && call.function).toEqual({ name: "get_weather", arguments: '{"city":"Paris"}' });
    expect(data.choices[0]?.finish_reason).toBe("tool_calls");
    const sent = azure.inference[0];
    expect(sent).toMatchObject({ deployment: "gpt-4o-prod", operation: "chat/completions", apiVersion: "2024-10-21" });
    expect(sent?.headers["api-key"]).toBe(azure.apiKey);
    expect(sent?.headers.authorization).toBeUndefined();
    const annotated = data as unknown as Annotated;
    expect(annotated.prompt_filter_results?.[0]?.content_filter_results).toMatchObject({ hate: { filtered: false } });
    expect(annotated.choices[0]?.content_filter_results?.violence).toEqual({ filtered: false, severity: "safe" });

    // The tool's result goes back; the model answers in text.
    const second = await client().chat.completions.create({
      model: "@azure/gpt-4o",
      messages: [
        { role: "user", content: "weather in Paris?" },
        { role: "assistant", content: null, tool_calls: [call as NonNullable<typeof call>] },
        { role: "tool", tool_call_id: call?.id ?? "", content: "sunny" },
      ],
      tools: [WEATHER_TOOL],
    });
    seen.push(JSON.stringify(second));
    expect(second.choices[0]?.message.content).toBe("echo: sunny");

    const record = await logOf(response.headers.get("x-gateway-request-id"));
    expect(record.provider_filters).toMatchObject({
      source: "azure_content_filter",
      filtered: false,
      prompt: { jailbreak: { filtered: false, detected: false }, violence: { filtered: false, severity: "safe" } },
      completion: { violence: { filtered: false, severity: "safe" } },
    });
    expect(record.attempts[0]?.provider_filters).toEqual(record.provider_filters);
  });

  it("streams the tool call, with Azure's prompt-results event passed on and recorded", async () => {
    const { data: stream, response } = await client()
      .chat.completions.create({
        model: "@azure/gpt-4o",
        messages: [{ role: "user", content: "weather in Paris?" }],
        tools: [WEATHER_TOOL],
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    let args = "";
    let name: string | undefined;
    let finish: string | null | undefined;
    let promptResults = 0;
    let usage: unknown;
    for await (const chunk of stream) {
      seen.push(JSON.stringify(chunk));
      if ((chunk as unknown as Annotated).prompt_filter_results) promptResults++;
      const delta = chunk.choices[0]?.delta;
      name ??= delta?.tool_calls?.[0]?.function?.name;
      args += delta?.tool_calls?.[0]?.function?.arguments ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(name).toBe("get_weather");
    expect(JSON.parse(args)).toEqual({ city: "Paris" });
    expect(finish).toBe("tool_calls");
    expect(promptResults).toBe(1);
    expect(usage).toMatchObject({ total_tokens: 19 });
    expect(azure.inference[0]?.body.stream).toBe(true);
    const record = await logOf(response.headers.get("x-gateway-request-id"));
    expect(record.provider_filters).toMatchObject({ filtered: false, prompt: { hate: { severity: "safe" } } });
  });
});

function anthropic(): Anthropic {
  return new Anthropic({
    baseURL: gateway.url,
    apiKey: "sk-ant-unused-by-slug-providers",
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": API_KEY },
  });
}

const ANTHROPIC_TOOL = {
  name: "get_weather",
  description: "The weather in a city",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
};

describe("Anthropic clients", () => {
  it("a Messages request with a tool reaches the deployment's chat completions and comes back as tool_use", async () => {
    const message = await anthropic().messages.create({
      model: "@azure/gpt-4o",
      max_tokens: 200,
      messages: [{ role: "user", content: "weather in Paris?" }],
      tools: [ANTHROPIC_TOOL],
    });
    seen.push(JSON.stringify(message));
    expect(message.stop_reason).toBe("tool_use");
    const use = message.content.find((block) => block.type === "tool_use");
    expect(use).toMatchObject({ name: "get_weather", input: { city: "Paris" } });
    const sent = azure.inference[0];
    expect(sent).toMatchObject({ deployment: "gpt-4o-prod", operation: "chat/completions", apiVersion: "2024-10-21" });
    expect(sent?.headers["api-key"]).toBe(azure.apiKey);
    expect((sent?.body.tools as unknown[] | undefined)?.[0]).toMatchObject({
      type: "function",
      function: { name: "get_weather" },
    });
  });

  it("a streamed Messages request with a tool streams the tool's input back", async () => {
    const stream = anthropic().messages.stream({
      model: "@azure/gpt-4o",
      max_tokens: 200,
      messages: [{ role: "user", content: "weather in Paris?" }],
      tools: [ANTHROPIC_TOOL],
    });
    const message = await stream.finalMessage();
    seen.push(JSON.stringify(message));
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content.find((block) => block.type === "tool_use")).toMatchObject({ input: { city: "Paris" } });
    expect(azure.inference[0]?.body.stream).toBe(true);
  });

  it("the content filter's verdicts on a translated answer and stream are recorded in the log", async () => {
    azure.enqueue({ kind: "filtered-output" }, { kind: "filtered-output" });
    const { response } = await anthropic()
      .messages.create({ model: "@azure/gpt-4o", max_tokens: 50, messages: [{ role: "user", content: "tell me" }] })
      .withResponse();
    const whole = await logOf(response.headers.get("x-gateway-request-id"));
    expect(whole.provider_filters).toMatchObject({
      filtered: true,
      completion: { violence: { filtered: true, severity: "medium" } },
    });

    const { response: streamed, data: stream } = await anthropic()
      .messages.create({ model: "@azure/gpt-4o", max_tokens: 50, stream: true, messages: [{ role: "user", content: "tell me" }] })
      .withResponse();
    for await (const event of stream) seen.push(JSON.stringify(event));
    const record = await logOf(streamed.headers.get("x-gateway-request-id"));
    expect(record.provider_filters).toMatchObject({ filtered: true, prompt: { jailbreak: { detected: false } } });
  });

  it("Azure's 429 keeps its status, with retry-after-ms given as retry-after", async () => {
    azure.enqueue({ kind: "error", status: 429, headers: { "retry-after-ms": "2500" } });
    const error = await anthropic()
      .messages.create({ model: "@azure/gpt-4o", max_tokens: 50, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    const apiError = error as InstanceType<typeof Anthropic.APIError>;
    seen.push(JSON.stringify(apiError.error ?? null));
    expect(apiError.status).toBe(429);
    expect(apiError.headers?.get("retry-after")).toBe("2.5");
  });

  it("a denying output guardrail stops a translated stream in window mode with the SDK's error event", async () => {
    azure.text = `${"all is well here and now ".repeat(8)}the secret is out`;
    const config = {
      stream_mode: "window",
      stream_window: 20,
      output_guardrails: [{ id: "no-secrets", deny: true, regexMatch: { rule: "secret", not: true } }],
    };
    const client = new Anthropic({
      baseURL: gateway.url,
      apiKey: "sk-ant-unused",
      maxRetries: 0,
      defaultHeaders: { "x-gateway-api-key": API_KEY, "x-gateway-config": JSON.stringify(config) },
    });
    const stream = client.messages.stream({
      model: "@azure/gpt-4o",
      max_tokens: 200,
      messages: [{ role: "user", content: "talk" }],
    });
    let text = "";
    stream.on("text", (delta) => (text += delta));
    const error = await stream.finalMessage().catch((e: unknown) => e);
    expect(text).toContain("all is well");
    expect(text).not.toContain("secret");
    expect(error).toBeInstanceOf(Anthropic.APIError);
    // The Anthropic client keeps the event's body, `{type: "error", error: {...}}`, as `error`.
    expect(((error as InstanceType<typeof Anthropic.APIError>).error as { error: unknown }).error).toMatchObject({
      type: "hooks_failed",
      side: "output",
      guardrails: ["no-secrets"],
    });
  });
});

describe("completions and embeddings", () => {
  it("embeds through the model's deployment", async () => {
    const data = await client().embeddings.create({ model: "@azure/text-embedding-3-small", input: ["a", "bb"] });
    seen.push(JSON.stringify(data));
    expect(data.data.map((d) => d.index)).toEqual([0, 1]);
    expect(azure.inference[0]).toMatchObject({ deployment: "text-embed", operation: "embeddings" });
  });

  it("completes text through deployment_id, streamed and not", async () => {
    const whole = await client().completions.create({ model: "@azure/gpt-35-turbo-instruct", prompt: "say hi" });
    seen.push(JSON.stringify(whole));
    expect(whole.choices[0]?.text).toBe("echo: say hi");
    const stream = await client().completions.create({ model: "@azure/gpt-35-turbo-instruct", prompt: "say hi", stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? "";
    expect(text).toBe("echo: say hi");
    expect(azure.inference.map((r) => `${r.deployment} ${r.operation}`)).toEqual([
      "instruct-prod completions",
      "instruct-prod completions",
    ]);
  });
});

describe("content filter", () => {
  it("a completion the filter cut keeps finish_reason content_filter and its verdicts, and the log records them", async () => {
    azure.enqueue({ kind: "filtered-output" });
    const { data, response } = await client()
      .chat.completions.create({ model: "@azure/gpt-4o", messages: [{ role: "user", content: "tell me" }] })
      .withResponse();
    expect(data.choices[0]?.finish_reason).toBe("content_filter");
    expect((data as unknown as Annotated).choices[0]?.content_filter_results?.violence).toEqual({
      filtered: true,
      severity: "medium",
    });
    const record = await logOf(response.headers.get("x-gateway-request-id"));
    expect(record.provider_filters).toMatchObject({
      filtered: true,
      completion: { violence: { filtered: true, severity: "medium" } },
    });
  });

  it("a streamed completion the filter cut ends with content_filter, recorded once the stream ended", async () => {
    azure.enqueue({ kind: "filtered-output" });
    const { data: stream, response } = await client()
      .chat.completions.create({ model: "@azure/gpt-4o", messages: [{ role: "user", content: "tell me" }], stream: true })
      .withResponse();
    let finish: string | null | undefined;
    for await (const chunk of stream) finish = chunk.choices[0]?.finish_reason ?? finish;
    expect(finish).toBe("content_filter");
    const record = await logOf(response.headers.get("x-gateway-request-id"));
    expect(record.provider_filters).toMatchObject({ filtered: true, completion: { violence: { filtered: true } } });
    expect(record.attempts.at(-1)?.provider_filters?.filtered).toBe(true);
  });

  it("a prompt the filter refused is Azure's 400 content_filter with its innererror, recorded as filtered", async () => {
    azure.enqueue({ kind: "filtered-prompt" });
    const error = await caught(
      client().chat.completions.create({ model: "@azure/gpt-4o", messages: [{ role: "user", content: "something violent" }] }),
    );
    expect(error.status).toBe(400);
    expect(error.code).toBe("content_filter");
    expect((error.error as { innererror?: unknown }).innererror).toMatchObject({
      code: "ResponsibleAIPolicyViolation",
      content_filter_result: { violence: { filtered: true, severity: "high" } },
    });
    const record = await logOf(error.headers?.get("x-gateway-request-id") ?? null);
    expect(record.provider_filters).toMatchObject({ filtered: true, prompt: { violence: { filtered: true, severity: "high" } } });
  });
});

describe("output guardrails on Azure streams", () => {
  it("a denying guardrail stops the stream in window mode with the error event the SDK raises", async () => {
    azure.text = `${"all is well here and now ".repeat(8)}the secret is out`;
    const config = {
      stream_mode: "window",
      stream_window: 20,
      output_guardrails: [{ id: "no-secrets", deny: true, regexMatch: { rule: "secret", not: true } }],
    };
    const stream = await client(config).chat.completions.create({
      model: "@azure/gpt-4o",
      messages: [{ role: "user", content: "talk" }],
      stream: true,
    });
    let text = "";
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    })().catch((e: unknown) => e);
    expect(text).toContain("all is well");
    expect(text).not.toContain("secret");
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).error).toMatchObject({ type: "hooks_failed", side: "output", guardrails: ["no-secrets"] });
  });
});

describe("a config naming the kind", () => {
  it("carries the kind's settings as its own keys, the peer gateway's way", async () => {
    const config = {
      provider: "azure-openai",
      custom_host: azure.baseUrl,
      api_key: azure.apiKey,
      deployment_id: "gpt-4o-prod",
      api_version: "2025-01-01-preview",
    };
    const data = await client(config).chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] });
    seen.push(JSON.stringify(data));
    expect(data.choices[0]?.message.content).toBe("echo: hi");
    expect(azure.inference[0]).toMatchObject({ deployment: "gpt-4o-prod", apiVersion: "2025-01-01-preview" });
    expect(azure.inference[0]?.headers["api-key"]).toBe(azure.apiKey);
  });

  it("refuses a setting that does not suit the kind, naming it, before any call", async () => {
    const config = { provider: "azure-openai", custom_host: azure.baseUrl, api_key: azure.apiKey, api_version: "newest" };
    const error = await caught(
      client(config).chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }),
    );
    expect(error.status).toBe(400);
    expect(error.message).toContain("api_version");
    expect(azure.inference).toHaveLength(0);
  });
});

describe("Microsoft Entra ID", () => {
  it("authenticates with a bearer token from the client-credentials flow, fetched once and reused", async () => {
    forgetAzureTokens();
    const issuedBefore = azure.issued.length;
    for (const content of ["one", "two"]) {
      const data = await client().chat.completions.create({
        model: "@azure-entra/gpt-4o",
        messages: [{ role: "user", content }],
      });
      seen.push(JSON.stringify(data));
      expect(data.choices[0]?.message.content).toBe(`echo: ${content}`);
    }
    expect(azure.tokenRequests).toEqual([
      {
        grant_type: "client_credentials",
        client_id: azure.clientId,
        client_secret: azure.clientSecret,
        scope: "https://cognitiveservices.azure.com/.default",
      },
    ]);
    const token = azure.issued.at(-1);
    expect(azure.issued.length).toBe(issuedBefore + 1);
    for (const request of azure.inference) {
      expect(request.headers.authorization).toBe(`Bearer ${token}`);
      expect(request.headers["api-key"]).toBeUndefined();
      expect(request.deployment).toBe("gpt-4o-prod");
    }
  });

  it("renews the token before it expires", async () => {
    forgetAzureTokens();
    azure.tokenLifetime = 1;
    try {
      const ask = () =>
        client().chat.completions.create({ model: "@azure-entra/gpt-4o", messages: [{ role: "user", content: "hi" }] });
      await ask();
      await ask();
      expect(azure.tokenRequests).toHaveLength(1);
      // A one-second token is renewed at half its life.
      await new Promise((resolve) => setTimeout(resolve, 600));
      await ask();
      expect(azure.tokenRequests).toHaveLength(2);
      const [first, second, third] = azure.inference.map((r) => r.headers.authorization);
      expect(second).toBe(first);
      expect(third).not.toBe(first);
    } finally {
      azure.tokenLifetime = 3599;
      forgetAzureTokens();
    }
  });

  it("a refused application is a 502 provider_auth_failed saying why, without the secret", async () => {
    const error = await caught(
      client().chat.completions.create({ model: "@azure-bad-secret/gpt-4o", messages: [{ role: "user", content: "hi" }] }),
    );
    expect(error.status).toBe(502);
    expect(error.code).toBe("provider_auth_failed");
    expect(error.message).toContain("invalid_client");
    expect(error.message).not.toContain(WRONG_SECRET);
    expect(azure.inference).toHaveLength(0);
  });
});

describe("errors, retry and fallback", () => {
  it("a 429 keeps its status and Azure's error, and retry-after-ms becomes retry-after in seconds", async () => {
    azure.enqueue({
      kind: "error",
      status: 429,
      headers: { "retry-after-ms": "1500", "retry-after": "2" },
      body: {
        error: { code: "429", message: "Requests to the ChatCompletions_Create Operation have exceeded call rate limit." },
      },
    });
    const error = await caught(
      client().chat.completions.create({ model: "@azure/gpt-4o", messages: [{ role: "user", content: "hi" }] }),
    );
    expect(error.status).toBe(429);
    expect(error.code).toBe("429");
    expect(error.headers?.get("retry-after")).toBe("1.5");
  });

  it("a retry waits what retry-after-ms asks and then answers", async () => {
    azure.enqueue({ kind: "error", status: 429, headers: { "retry-after-ms": "30" } });
    const config = { retry: { attempts: 1, on_status_codes: [429] } };
    const data = await client(config).chat.completions.create({
      model: "@azure/gpt-4o",
      messages: [{ role: "user", content: "again" }],
    });
    expect(data.choices[0]?.message.content).toBe("echo: again");
    expect(azure.inference).toHaveLength(2);
  });

  it("fallback from Azure answering 429 reaches the next target, and the log records both attempts", async () => {
    azure.enqueue({ kind: "error", status: 429, headers: { "retry-after": "1" } });
    const config = { strategy: { mode: "fallback" }, targets: [{ provider: "@azure" }, { provider: "@backup" }] };
    const { data, response } = await client(config)
      .chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "fall back" }] })
      .withResponse();
    seen.push(JSON.stringify(data));
    expect(response.status).toBe(200);
    expect(data.choices[0]?.message.content).toBe("echo: fall back");
    expect(azure.inference).toHaveLength(1);
    expect(backup.requests).toHaveLength(1);
    const record = await logOf(response.headers.get("x-gateway-request-id"));
    expect(record.attempts.map((a) => [a.provider, a.status])).toEqual([
      ["@azure", 429],
      ["@backup", 200],
    ]);
  });

  it("fallback from Azure answering 429 to Amazon Bedrock answers 200, and the log records both attempts", async () => {
    azure.enqueue({ kind: "error", status: 429, headers: { "retry-after-ms": "1000" } });
    const config = {
      strategy: { mode: "fallback" },
      targets: [
        { provider: "@azure" },
        { provider: "@bedrock", override_params: { model: "us.anthropic.claude-3-5-sonnet-20240620-v1:0" } },
      ],
    };
    const { data, response } = await client(config)
      .chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hello" }] })
      .withResponse();
    seen.push(JSON.stringify(data));
    expect(response.status).toBe(200);
    expect(data.choices[0]?.message.content).toBe("echo: hello");
    expect(azure.inference).toHaveLength(1);
    expect(bedrock.calls).toMatchObject([{ model: "us.anthropic.claude-3-5-sonnet-20240620-v1:0", operation: "converse" }]);
    const record = await logOf(response.headers.get("x-gateway-request-id"));
    expect(record.attempts.map((a) => [a.provider, a.status])).toEqual([
      ["@azure", 429],
      ["@bedrock", 200],
    ]);
  });

  it("without deployment settings the model names the deployment, and a model that cannot is refused before any call", async () => {
    const data = await client().chat.completions.create({
      model: "@azure-by-model/gpt-4o-prod",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(data.choices[0]?.message.content).toBe("echo: hi");
    const error = await caught(
      client().chat.completions.create({ model: "@azure-by-model/../../admin", messages: [{ role: "user", content: "hi" }] }),
    );
    expect(error.status).toBe(400);
    expect(error.code).toBe("invalid_model");
    expect(azure.inference.map((r) => r.deployment)).toEqual(["gpt-4o-prod"]);
  });
});

describe("secrets", () => {
  it("no api key, client secret or token appears in any answer, error or log record", () => {
    const secrets = [
      azure.apiKey,
      azure.clientSecret,
      WRONG_SECRET,
      BACKUP_KEY,
      BEDROCK_SECRET_ACCESS_KEY,
      BEDROCK_SESSION_TOKEN,
      ...azure.issued,
    ];
    expect(azure.issued.length).toBeGreaterThan(0);
    const logs = JSON.stringify(gateway.logs.list());
    expect(seen.length).toBeGreaterThan(10);
    for (const secret of secrets) {
      for (const text of seen) expect(text).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });
});
