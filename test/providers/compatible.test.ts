/**
 * The OpenAI-compatible kinds of the catalog (docs/providers.md, "OpenAI-compatible services"):
 * each speaks the OpenAI format at its own base URL, with its key as a bearer. A provider record
 * whose base URL keeps the kind's path on the fake's origin shows each call's path and credential.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PROVIDER_CATALOG } from "../../server/providers/catalog.js";
import { OPENAI_CHAT } from "../../server/providers/kinds/openai/index.js";
import { FakeUpstream } from "../support/fake-upstream.js";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";

/** Each kind, its documented base URL, and whether it is a server on this machine. */
const KINDS = [
  ["cohere", "https://api.cohere.ai/compatibility/v1", false],
  ["perplexity-ai", "https://api.perplexity.ai", false],
  ["x-ai", "https://api.x.ai/v1", false],
  ["cerebras", "https://api.cerebras.ai/v1", false],
  ["vllm", "http://127.0.0.1:8000/v1", true],
  ["lm-studio", "http://127.0.0.1:1234/v1", true],
] as const;

const keyOf = (kind: string) => `sk-${kind}-server-held-0001`;

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await new FakeUpstream().start();
  gateway = await startGateway({
    file: {
      providers: [
        ...KINDS.map(([kind, baseUrl]) => ({
          slug: kind,
          provider: kind,
          base_url: `${upstream.origin}${new URL(baseUrl).pathname.replace(/\/$/, "")}`,
          api_key: keyOf(kind),
        })),
        // Local servers need no key: a record naming only the kind is complete.
        { slug: "local-vllm", provider: "vllm" },
        { slug: "local-lm-studio", provider: "lm-studio" },
      ],
    },
  });
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

beforeEach(() => upstream.reset());

function sdk(): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: "sk-unused",
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": API_KEY },
  });
}

describe("OpenAI-compatible kinds", () => {
  it.each(KINDS)("%s speaks the OpenAI format at %s with its key as a bearer", async (kind, baseUrl, local) => {
    // Anthropic clients reach it through the OpenAI chat backend (docs/providers.md, "Format translation").
    expect(PROVIDER_CATALOG[kind]).toEqual({ format: "openai", baseUrl, chat: OPENAI_CHAT });
    expect(new URL(baseUrl).hostname === "127.0.0.1").toBe(local);
    const answer = await sdk().chat.completions.create({
      model: `@${kind}/some-model`,
      messages: [{ role: "user", content: `hello ${kind}` }],
    });
    expect(answer.choices[0]?.message.content).toBe(`echo: hello ${kind}`);
    const path = new URL(baseUrl).pathname.replace(/\/$/, "");
    expect(upstream.requests.map((r) => r.path)).toEqual([`${path}/chat/completions`]);
    expect(upstream.requests[0]?.headers.authorization).toBe(`Bearer ${keyOf(kind)}`);
    expect(upstream.requests[0]?.body.model).toBe("some-model");
  });
});
