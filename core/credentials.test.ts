import { describe, expect, it } from "vitest";
import { createEngine } from "../index.js";
import { ConfigError, PluginError } from "./errors.js";
import { defineCheck, definePlugin } from "./plugin-api.js";
import { MIN_SECRET_LENGTH, REDACTED, Redactor } from "./redact.js";
import { CheckRegistry } from "./registry.js";

const KEY = "sk-live-4f9a0c2e7b1d";
const OTHER_KEY = "sk-other-88c1e0aa";

// A careless plugin: it echoes its credentials everywhere a result can carry text.
const leaky = defineCheck<{ throwIt: boolean }>({
  id: "leaky",
  description: "Returns its credentials in data, log and error messages.",
  sides: ["input", "output"],
  parameters: { type: "object", properties: { throwIt: { type: "boolean", default: false } }, additionalProperties: false },
  run({ credentials, headers }, { throwIt }) {
    if (throwIt) throw new Error(`upstream refused key ${String(credentials?.apiKey)}`);
    return {
      verdict: true,
      data: {
        credentials,
        sentence: `using ${String(credentials?.apiKey)} for this call`,
        nested: [{ deep: [credentials?.apiKey] }],
        [String(credentials?.apiKey)]: "as a key",
        authorization: headers.authorization ?? null,
        region: credentials?.region ?? null,
      },
      log: `called with ${String(credentials?.apiKey)}`,
    };
  },
});

const leakyPlugin = definePlugin({
  id: "leaky",
  class: "custom",
  apiVersion: 1,
  credentials: {
    type: "object",
    properties: { apiKey: { type: "string", minLength: 8 }, region: { type: "string", default: "eu" } },
    required: ["apiKey"],
    additionalProperties: false,
  },
  checks: [leaky],
});

const request = { messages: [{ role: "user", content: "hello" }] };

async function evaluateLeaky(parameters: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const engine = await createEngine({ plugins: [leakyPlugin] });
  const evaluation = await engine.evaluate({
    side: "input",
    requestType: "chatComplete",
    request,
    guardrails: [{ checks: [{ id: "leaky.leaky", parameters }] }],
    ...extra,
  });
  await engine.close();
  return evaluation;
}

describe("plugin credentials", () => {
  it("hands a check the credentials of its parameters and redacts them from data, keys and log", async () => {
    const evaluation = await evaluateLeaky({ credentials: { apiKey: KEY } });
    const result = evaluation.results[0]?.checks[0];
    expect(JSON.stringify(evaluation)).not.toContain(KEY);
    expect(result?.data).toEqual({
      credentials: { apiKey: REDACTED, region: "eu" },
      sentence: `using ${REDACTED} for this call`,
      nested: [{ deep: [REDACTED] }],
      [REDACTED]: "as a key",
      authorization: null,
      region: "eu",
    });
    expect(result?.log).toBe(`called with ${REDACTED}`);
  });

  it("hands a check the integration's credentials when its parameters carry none, redacted likewise", async () => {
    const evaluation = await evaluateLeaky({}, { credentials: { leaky: { apiKey: KEY, region: "us-east-1" } } });
    expect(JSON.stringify(evaluation)).not.toContain(KEY);
    // Every credential string of six characters or more counts as a secret.
    expect(evaluation.results[0]?.checks[0]?.data.region).toBe(REDACTED);
  });

  it("prefers the parameters' credentials to the integration's", async () => {
    const evaluation = await evaluateLeaky({ credentials: { apiKey: KEY } }, { credentials: { leaky: { apiKey: OTHER_KEY } } });
    const data = evaluation.results[0]?.checks[0]?.data;
    expect(data?.sentence).toBe(`using ${REDACTED} for this call`);
    // The integration's key was not handed to the check, so it cannot be in the result at all.
    expect(JSON.stringify(evaluation)).not.toContain(OTHER_KEY);
  });

  it("redacts credentials from the message of an error the check throws", async () => {
    const evaluation = await evaluateLeaky({ throwIt: true, credentials: { apiKey: KEY } });
    expect(evaluation.results[0]?.checks[0]?.error).toEqual({ name: "Error", message: `upstream refused key ${REDACTED}` });
  });

  it("redacts the caller's authorization token that a check echoes", async () => {
    const evaluation = await evaluateLeaky(
      { credentials: { apiKey: KEY } },
      { headers: { authorization: "Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig", "x-request-id": "abcdefgh" } },
    );
    expect(evaluation.results[0]?.checks[0]?.data.authorization).toBe(REDACTED);
    expect(JSON.stringify(evaluation)).not.toContain("eyJhbGciOiJIUzI1NiJ9");
  });

  it("refuses parameters.credentials that do not match the plugin's credentials schema when the config loads", async () => {
    const engine = await createEngine({ plugins: [leakyPlugin] });
    const load = engine.normalize({ input_guardrails: [{ "leaky.leaky": { credentials: { apiKey: 42 } } }] });
    await expect(load).rejects.toThrow(ConfigError);
    await expect(load).rejects.toThrow(/input_guardrails\[0\]\["leaky\.leaky"\]\.credentials\.apiKey: must be string/);
    await expect(engine.normalize({ input_guardrails: [{ "leaky.leaky": { credentials: "x" } }] })).rejects.toThrow(
      /credentials: must be an object/,
    );
  });

  it("makes missing or malformed integration credentials a check error that never shows them", async () => {
    const missing = await evaluateLeaky({});
    expect(missing.results[0]?.checks[0]?.error).toEqual({
      name: "CredentialsError",
      message:
        'plugin "leaky" needs credentials (credentials.apiKey: is required): add an integration for it or set the check\'s parameters.credentials',
    });
    expect(missing.status).toBe(200);

    const short = await evaluateLeaky({ failOnError: true }, { credentials: { leaky: { apiKey: "sk-1234" } } });
    const check = short.results[0]?.checks[0];
    expect(check?.error).toEqual({
      name: "CredentialsError",
      message:
        'the integration\'s credentials for plugin "leaky" do not match its credentials schema: credentials.apiKey: must NOT have fewer than 8 characters',
    });
    expect(short.status).toBe(246);
    expect(JSON.stringify(short)).not.toContain("sk-1234");
  });

  it("never changes the integration's credentials object when applying schema defaults", async () => {
    const held = { leaky: { apiKey: KEY } };
    await evaluateLeaky({}, { credentials: held });
    expect(held).toEqual({ leaky: { apiKey: KEY } });
  });

  it("refuses a plugin whose credentials schema does not compile or is not an object schema", () => {
    const registry = new CheckRegistry();
    expect(() =>
      registry.register({ ...leakyPlugin, credentials: { type: "object", properties: { a: { type: "strin" } } } }),
    ).toThrow(PluginError);
    expect(() => registry.register({ ...leakyPlugin, credentials: { type: "string" } })).toThrow(
      /credentials must be a JSON Schema of type "object"/,
    );
    expect(registry.plugins()).toEqual([]);
  });
});

describe("a result that cannot be read while redacting", () => {
  it("becomes a check error without data instead of failing the phase", async () => {
    // Whichever step reads the data first (the plain-data check or redaction), the phase goes on.
    const trap = defineCheck({
      id: "trap",
      description: "Returns data whose reading throws.",
      sides: ["input"],
      parameters: { type: "object" },
      run: () => ({
        verdict: true,
        data: {
          get secret(): string {
            throw new Error("gotcha");
          },
        },
      }),
    });
    const engine = await createEngine({
      plugins: [definePlugin({ id: "trap", class: "custom", apiVersion: 1, checks: [trap] })],
    });
    const evaluation = await engine.evaluate({
      side: "input",
      requestType: "chatComplete",
      request,
      guardrails: [{ checks: [{ id: "trap.trap", parameters: { credentials: { apiKey: KEY } } }] }],
    });
    await engine.close();
    expect(evaluation.results[0]?.checks[0]).toMatchObject({
      data: {},
      verdict: false,
      log: null,
      error: expect.objectContaining({ message: expect.any(String) }),
    });
  });
});

describe("Redactor", () => {
  it("replaces the longest secret first, keeps short strings, copies arrays and plain objects", () => {
    const redactor = new Redactor(["abcdef", "abcdefghij", "x".repeat(MIN_SECRET_LENGTH - 1)]);
    expect(redactor.text("key abcdefghij and abcdef")).toBe(`key ${REDACTED} and ${REDACTED}`);
    const data = { list: ["abcdef"], when: new Date(0) };
    const copy = redactor.value(data) as typeof data;
    expect(copy).toEqual({ list: [REDACTED], when: new Date(0) });
    expect(data.list).toEqual(["abcdef"]);
  });

  it("keeps cycles and a __proto__ key as data", () => {
    const redactor = new Redactor(["secret-value"]);
    const cyclic: Record<string, unknown> = { name: "secret-value" };
    cyclic.self = cyclic;
    const copy = redactor.value(cyclic) as Record<string, unknown>;
    expect(copy.self).toBe(copy);
    expect(copy.name).toBe(REDACTED);
    const parsed = JSON.parse('{"__proto__": {"polluted": "secret-value"}}');
    const out = redactor.value(parsed) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toEqual({ polluted: REDACTED });
  });
});
