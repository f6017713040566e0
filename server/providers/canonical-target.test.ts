import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inScope, targetNames } from "../policies/scope.js";
import { canonicalTarget, type TargetProvider } from "./canonical-target.js";

const gemini: TargetProvider = { kind: "http", name: "google", slug: "gem" };
const vertex: TargetProvider = { kind: "http", name: "vertex-ai", slug: "vtx" };
const bedrock: TargetProvider = { kind: "http", name: "bedrock", slug: "bed" };
const azureFixed: TargetProvider = { kind: "http", name: "azure-openai", slug: "azd", options: { deployment_id: "gpt-4o" } };
const azureMapped: TargetProvider = {
  kind: "http",
  name: "azure-openai",
  slug: "aza",
  options: { azure_deployments: { fast: "gpt-4o", "gpt-4o-mini": "mini-prod" } },
};
const azurePlain: TargetProvider = { kind: "http", name: "azure-openai", slug: "azp" };
const openaiOwnKey: TargetProvider = { kind: "http", name: "openai" };
const mock: TargetProvider = { kind: "mock", name: "mock" };

const CLAUDE = "anthropic.claude-3-5-sonnet-20241022-v2:0";

/** Every naming path: the provider, the model as a request may write it, and the model it calls. */
const EQUIVALENT_NAMES: ReadonlyArray<{ provider: TargetProvider; written: string | undefined; model: string | undefined }> = [
  // Gemini API and Vertex AI: the service's own resource prefixes.
  { provider: gemini, written: "gemini-2.0-flash", model: "gemini-2.0-flash" },
  { provider: gemini, written: "models/gemini-2.0-flash", model: "gemini-2.0-flash" },
  { provider: gemini, written: "publishers/google/models/gemini-2.0-flash", model: "gemini-2.0-flash" },
  { provider: vertex, written: "gemini-2.0-flash", model: "gemini-2.0-flash" },
  { provider: vertex, written: "models/gemini-2.0-flash", model: "gemini-2.0-flash" },
  { provider: vertex, written: "publishers/google/models/gemini-2.0-flash", model: "gemini-2.0-flash" },
  {
    provider: vertex,
    written: "projects/my-project/locations/us-central1/publishers/google/models/gemini-2.0-flash",
    model: "gemini-2.0-flash",
  },
  // Azure OpenAI: the deployment addressed.
  { provider: azureFixed, written: "anything-else", model: "gpt-4o" },
  { provider: azureFixed, written: "gpt-4o", model: "gpt-4o" },
  { provider: azureFixed, written: undefined, model: "gpt-4o" },
  { provider: azureMapped, written: "fast", model: "gpt-4o" },
  { provider: azureMapped, written: "gpt-4o", model: "gpt-4o" },
  { provider: azureMapped, written: "gpt-4o-mini", model: "mini-prod" },
  { provider: azureMapped, written: "constructor", model: "constructor" },
  { provider: azurePlain, written: "gpt-4o", model: "gpt-4o" },
  // Amazon Bedrock: inference profiles and ARNs name the model inside.
  { provider: bedrock, written: CLAUDE, model: CLAUDE },
  { provider: bedrock, written: `us.${CLAUDE}`, model: CLAUDE },
  { provider: bedrock, written: `eu.${CLAUDE}`, model: CLAUDE },
  { provider: bedrock, written: `apac.${CLAUDE}`, model: CLAUDE },
  { provider: bedrock, written: `us-gov.${CLAUDE}`, model: CLAUDE },
  { provider: bedrock, written: `global.${CLAUDE}`, model: CLAUDE },
  { provider: bedrock, written: `arn:aws:bedrock:us-east-1::foundation-model/${CLAUDE}`, model: CLAUDE },
  { provider: bedrock, written: `arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.${CLAUDE}`, model: CLAUDE },
  { provider: bedrock, written: `arn:aws-us-gov:bedrock:us-gov-west-1::foundation-model/${CLAUDE}`, model: CLAUDE },
  // Others: the model as sent.
  { provider: openaiOwnKey, written: "gpt-4o", model: "gpt-4o" },
  { provider: mock, written: "m", model: "m" },
];

describe("canonical targets", () => {
  it.each(EQUIVALENT_NAMES)("$provider.name (@$provider.slug) names $written as $model", ({ provider, written, model }) => {
    const target = canonicalTarget(provider, written);
    expect(target.model).toBe(model);
    expect(target.opaque).toBe(false);
    // Every equivalent spelling answers to the canonical name, and keeps the one written.
    const names = targetNames(target);
    const slug = provider.slug ?? (provider.kind === "mock" ? "mock" : undefined);
    if (model !== undefined) expect(names).toContain(slug ? `@${slug}/${model}` : model);
    if (written !== undefined) expect(names).toContain(slug ? `@${slug}/${written}` : written);
  });

  it("names the kind of the provider too, however it was reached", () => {
    expect(targetNames(canonicalTarget(openaiOwnKey, "gpt-4o"))).toEqual(["gpt-4o", "openai:gpt-4o"]);
    expect(targetNames(canonicalTarget(azureMapped, "fast"))).toEqual([
      "@aza/gpt-4o",
      "@aza/fast",
      "azure-openai:gpt-4o",
      "azure-openai:fast",
    ]);
    expect(targetNames(canonicalTarget(mock, "m"))).toEqual(["@mock/m", "mock:m"]);
    expect(targetNames(canonicalTarget(gemini, undefined))).toEqual(["@gem/"]);
  });

  it("keeps a fine-tune's base model as a name of it", () => {
    const tuned = canonicalTarget(openaiOwnKey, "ft:gpt-4o-mini:acme::abc123");
    expect(targetNames(tuned)).toContain("gpt-4o-mini");
  });

  it("marks a Bedrock ARN only AWS can resolve as opaque, held by any pattern that could name a model of its provider", () => {
    for (const arn of [
      "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3",
      "arn:aws:bedrock:us-east-1:123456789012:provisioned-model/xyz",
      "arn:aws:bedrock:us-east-1:123456789012:custom-model/anthropic.claude/abc",
    ]) {
      const target = canonicalTarget(bedrock, arn);
      expect(target.opaque).toBe(true);
      const request = { workspaceId: "w", apiKeyId: "k", targets: [target] };
      for (const held of ["@bed/anthropic.claude-*", "@bed/*", "@bed/gpt-4o", "*claude*", "bedrock:*", "@b*"]) {
        expect({ held, in: inScope({ models: [held] }, request) }).toEqual({ held, in: true });
      }
      for (const free of ["@gem/*", "@bed", "gpt-4o", "openai:*"]) {
        expect({ free, in: inScope({ models: [free] }, request) }).toEqual({ free, in: false });
      }
    }
  });
});

// Small generators from fixed parts: fast to draw, and every part a name really takes.
const word = fc.constantFrom("a", "b7", "x-y", "mini", "0");
const region = fc.constantFrom("us-east-1", "eu-west-3", "ap-south-1", "us-gov-west-1");
const account = fc.integer({ min: 0, max: 999_999_999_999 }).map((n) => String(n).padStart(12, "0"));

/** A Gemini model id, as the API names them. */
const geminiId = fc
  .tuple(
    fc.integer({ min: 1, max: 3 }),
    fc.integer({ min: 0, max: 9 }),
    fc.constantFrom("flash", "pro", "flash-lite"),
    fc.option(word),
  )
  .map(([major, minor, size, suffix]) => `gemini-${major}.${minor}-${size}${suffix === null ? "" : `-${suffix}`}`);

/** A Bedrock model id: provider, dot, model, version. */
const bedrockId = fc
  .tuple(
    fc.constantFrom("anthropic", "meta", "amazon", "mistral", "cohere"),
    fc.array(word, { minLength: 1, maxLength: 4 }),
    fc.nat(3),
  )
  .map(([vendor, parts, version]) => `${vendor}.${parts.join("-")}-v${version}:0`);

/** Equivalent spellings of one Google model id. */
const googleSpelling = (id: string) =>
  fc.oneof(
    fc.constant(id),
    fc.constant(`models/${id}`),
    fc.constant(`publishers/google/models/${id}`),
    fc.tuple(word, region).map(([project, where]) => `projects/p-${project}/locations/${where}/publishers/google/models/${id}`),
  );

/** Equivalent spellings of one Bedrock model id. */
const bedrockSpelling = (id: string) =>
  fc.oneof(
    fc.constant(id),
    fc.constantFrom("us", "eu", "apac", "us-gov", "jp", "au", "ca", "global").map((geo) => `${geo}.${id}`),
    region.map((where) => `arn:aws:bedrock:${where}::foundation-model/${id}`),
    fc
      .tuple(region, account, fc.constantFrom("us", "eu", "apac"))
      .map(([where, owner, geo]) => `arn:aws:bedrock:${where}:${owner}:inference-profile/${geo}.${id}`),
  );

describe("canonical targets (property)", () => {
  const params = { seed: 3232, numRuns: 300 };

  it("resolves generated spellings of a Google model to one target, held by the scope of its plain name", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(gemini, vertex),
        geminiId.chain((id) => fc.tuple(fc.constant(id), googleSpelling(id), googleSpelling(id))),
        (provider, [id, a, b]) => {
          const [one, two] = [canonicalTarget(provider, a), canonicalTarget(provider, b)];
          expect(one.model).toBe(id);
          expect(two.model).toBe(one.model);
          const scope = { models: [`@${provider.slug}/${id}`] };
          expect(inScope(scope, { workspaceId: "w", apiKeyId: "k", targets: [one] })).toBe(true);
        },
      ),
      params,
    );
  });

  it("resolves generated spellings of a Bedrock model to one target, held by the scope of its plain name", () => {
    fc.assert(
      fc.property(
        bedrockId.chain((id) => fc.tuple(fc.constant(id), bedrockSpelling(id), bedrockSpelling(id))),
        ([id, a, b]) => {
          const [one, two] = [canonicalTarget(bedrock, a), canonicalTarget(bedrock, b)];
          expect(one.model).toBe(id);
          expect(two.model).toBe(one.model);
          expect(inScope({ models: [`@bed/${id}`] }, { workspaceId: "w", apiKeyId: "k", targets: [two] })).toBe(true);
        },
      ),
      params,
    );
  });

  it("resolves every name an Azure record maps to one deployment, held by the scope naming it", () => {
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 3 }).map((parts) => `d${parts.join(".")}`),
        fc.uniqueArray(
          fc.array(word, { minLength: 1, maxLength: 3 }).map((parts) => `m${parts.join("-")}`),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        fc.boolean(),
        (deployment, aliases, fixed) => {
          const options = fixed
            ? { deployment_id: deployment }
            : { azure_deployments: Object.fromEntries(aliases.map((a) => [a, deployment])) };
          const provider: TargetProvider = { kind: "http", name: "azure-openai", slug: "az", options };
          for (const alias of aliases) {
            const target = canonicalTarget(provider, alias);
            expect(target.model).toBe(deployment);
            expect(inScope({ models: [`@az/${deployment}`] }, { workspaceId: "w", apiKeyId: "k", targets: [target] })).toBe(true);
          }
        },
      ),
      params,
    );
  });
});
