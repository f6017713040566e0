/**
 * Where the two kinds send a call and with what credential, against the contract fake's token
 * endpoint (for Vertex AI's token) through a real upstream client.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GoogleFake, startGoogleProviderFake } from "../../../../test/support/providers/google.js";
import { GatewayError } from "../../../errors.js";
import { UpstreamClient } from "../../../upstream/client.js";
import type { ProviderCall } from "../../kind.js";
import type { HttpProvider } from "../../provider.js";
import { GOOGLE_KIND, VERTEX_AI_KIND } from "./index.js";

let fake: GoogleFake;
const upstream = new UpstreamClient();

beforeAll(async () => {
  fake = await startGoogleProviderFake();
});
afterAll(() => fake.close());

function call(provider: Partial<HttpProvider>): ProviderCall {
  return {
    provider: { kind: "http", name: "google", options: {}, baseUrl: "", trusted: true, headers: {}, identity: "x", ...provider },
  } as ProviderCall;
}

const chat = { model: "gemini-2.0-flash", messages: [{ role: "user", content: "hi" }] };

describe("the Gemini API kind", () => {
  it("calls the model's method under the v1beta root with the key in x-goog-api-key", async () => {
    const native = await GOOGLE_KIND.chat?.request(
      chat,
      call({ baseUrl: "https://generativelanguage.googleapis.com/v1beta", secret: "AIza-k" }),
      upstream,
    );
    expect(native?.url).toBe("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent");
    expect(native?.headers["x-goog-api-key"]).toBe("AIza-k");
    const streamed = await GOOGLE_KIND.chat?.request(
      { ...chat, model: "models/gemini-2.0-flash", stream: true },
      call({ baseUrl: "https://g.test/v1beta", secret: "k" }),
      upstream,
    );
    expect(streamed?.url).toBe("https://g.test/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse");
  });

  it("refuses to call without a key", async () => {
    await expect(GOOGLE_KIND.chat?.request(chat, call({ baseUrl: "https://g.test/v1beta" }), upstream)).rejects.toMatchObject({
      status: 400,
      code: "provider_not_configured",
    });
  });
});

describe("the Vertex AI kind", () => {
  const options = () => ({ vertex_region: "europe-west4", vertex_service_account_json: fake.serviceAccount });

  it("builds the regional endpoint from the options, the project from the service account, with a bearer token", async () => {
    const native = await VERTEX_AI_KIND.chat?.request(chat, call({ name: "vertex-ai", options: options() }), upstream);
    expect(native?.url).toBe(
      "https://europe-west4-aiplatform.googleapis.com/v1/projects/acme-prod/locations/europe-west4/publishers/google/models/gemini-2.0-flash:generateContent",
    );
    expect(native?.headers.authorization).toBe(`Bearer ${fake.tokensIssued().at(-1)}`);
  });

  it("uses the global endpoint for the global region, and vertex_project_id over the account's", async () => {
    const native = await VERTEX_AI_KIND.embeddings?.request(
      { model: "text-embedding-005", input: "x" },
      call({ name: "vertex-ai", options: { ...options(), vertex_region: "global", vertex_project_id: "other-project" } }),
      upstream,
    );
    expect(native?.url).toBe(
      "https://aiplatform.googleapis.com/v1/projects/other-project/locations/global/publishers/google/models/text-embedding-005:predict",
    );
    expect(JSON.parse(native?.body ?? "")).toEqual({ instances: [{ content: "x" }] });
  });

  it("says which field of the service account is missing, and never its key", async () => {
    const { private_key: _key, ...withoutKey } = fake.serviceAccount;
    const error = await VERTEX_AI_KIND.chat
      ?.request(chat, call({ name: "vertex-ai", options: { ...options(), vertex_service_account_json: withoutKey } }), upstream)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({
      status: 502,
      code: "provider_auth_failed",
      message: "vertex_service_account_json.private_key is missing",
    });
    const bad = await VERTEX_AI_KIND.chat
      ?.request(
        chat,
        call({
          name: "vertex-ai",
          options: {
            ...options(),
            vertex_service_account_json: {
              ...withoutKey,
              private_key: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
            },
          },
        }),
        upstream,
      )
      .catch((e: unknown) => e);
    expect(bad).toMatchObject({
      code: "provider_auth_failed",
      message: "vertex_service_account_json.private_key is not a PEM private key",
    });
  });
});
