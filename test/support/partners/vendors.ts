/**
 * Each partner plugin's contract fake and the credentials that point the plugin at it: how a
 * test runs a partner check without its vendor. The end-to-end run (test/partners/serve.test.ts)
 * and the examples test (test/check-examples.test.ts) both start fakes from here.
 */
import { startAcuvityFake } from "./acuvity.js";
import { APORIA_KEY, startAporiaFake } from "./aporia.js";
import { AZURE_KEY, startAzureFake } from "./azure.js";
import { BEDROCK_KEY_ID, BEDROCK_REGION, BEDROCK_SECRET, startBedrockFake } from "./bedrock.js";
import { AIDR_TOKEN, startAidrFake } from "./crowdstrike-aidr.js";
import { F5_TOKEN, startF5Fake } from "./f5-guardrails.js";
import type { PartnerFake } from "./fake.js";
import { type GoogleFake, startGoogleFake } from "./google.js";
import { JAVELIN_KEY, startJavelinFake } from "./javelin.js";
import { LAKERA_KEY, startLakeraFake } from "./lakera.js";
import { LASSO_KEY, startLassoFake } from "./lasso.js";
import { MISTRAL_KEY, startMistralFake } from "./mistral.js";
import { OPENAI_KEY, startOpenAIFake } from "./openai.js";
import { PANGEA_TOKEN, startPangeaFake } from "./pangea.js";
import { AIRS_KEY, startPrismaAirsFake } from "./panw-prisma-airs.js";
import { PATRONUS_KEY, startPatronusFake } from "./patronus.js";
import { PILLAR_KEY, startPillarFake } from "./pillar.js";
import { startPromptfooFake } from "./promptfoo.js";
import { PROMPT_SECURITY_APP_ID, startPromptSecurityFake } from "./promptsecurity.js";
import { QUALIFIRE_KEY, startQualifireFake } from "./qualifire.js";
import { startSydeLabsFake, SYDELABS_KEY } from "./sydelabs.js";
import { startWalledFake, WALLED_KEY } from "./walledai.js";

/** A partner plugin's fake and the integration credentials that send its checks there. */
export interface VendorFake {
  start(): Promise<PartnerFake>;
  credentials(fake: PartnerFake): Record<string, unknown>;
}

type AcuvityFake = Awaited<ReturnType<typeof startAcuvityFake>>;

/** By plugin id. */
export const VENDOR_FAKES: Record<string, VendorFake> = {
  openai: { start: startOpenAIFake, credentials: (fake) => ({ apiKey: OPENAI_KEY, baseURL: `${fake.origin}/v1` }) },
  azure: { start: startAzureFake, credentials: (fake) => ({ apiKey: AZURE_KEY, baseURL: fake.origin }) },
  bedrock: {
    start: startBedrockFake,
    credentials: (fake) => ({
      awsAccessKeyId: BEDROCK_KEY_ID,
      awsSecretAccessKey: BEDROCK_SECRET,
      awsRegion: BEDROCK_REGION,
      baseURL: fake.origin,
    }),
  },
  lakera: { start: () => startLakeraFake(), credentials: (fake) => ({ apiKey: LAKERA_KEY, apiBase: fake.origin }) },
  mistral: { start: startMistralFake, credentials: (fake) => ({ apiKey: MISTRAL_KEY, baseURL: fake.origin }) },
  google: {
    start: startGoogleFake,
    credentials: (fake) => ({
      serviceAccount: (fake as GoogleFake).serviceAccount,
      location: "us-central1",
      baseURL: fake.origin,
    }),
  },
  pangea: { start: startPangeaFake, credentials: (fake) => ({ apiKey: PANGEA_TOKEN, baseURL: fake.origin }) },
  patronus: { start: startPatronusFake, credentials: (fake) => ({ apiKey: PATRONUS_KEY, baseURL: fake.origin }) },
  aporia: { start: startAporiaFake, credentials: (fake) => ({ apiKey: APORIA_KEY, apiEndpoint: fake.origin }) },
  pillar: { start: startPillarFake, credentials: (fake) => ({ apiKey: PILLAR_KEY, baseURL: fake.origin }) },
  promptsecurity: {
    start: startPromptSecurityFake,
    credentials: (fake) => ({ apiKey: PROMPT_SECURITY_APP_ID, baseURL: fake.origin }),
  },
  // The token names the fake as its Apex endpoint, as a real token names the account's.
  acuvity: { start: startAcuvityFake, credentials: (fake) => ({ apiKey: (fake as AcuvityFake).token() }) },
  lasso: { start: startLassoFake, credentials: (fake) => ({ apiKey: LASSO_KEY, baseURL: fake.origin }) },
  "panw-prisma-airs": { start: startPrismaAirsFake, credentials: (fake) => ({ AIRS_API_KEY: AIRS_KEY, baseURL: fake.origin }) },
  "crowdstrike-aidr": { start: startAidrFake, credentials: (fake) => ({ apiKey: AIDR_TOKEN, baseUrl: fake.origin }) },
  "f5-guardrails": { start: startF5Fake, credentials: (fake) => ({ apiKey: F5_TOKEN, calypsoUrl: fake.origin }) },
  javelin: { start: startJavelinFake, credentials: (fake) => ({ apiKey: JAVELIN_KEY, baseURL: fake.origin }) },
  qualifire: { start: startQualifireFake, credentials: (fake) => ({ apiKey: QUALIFIRE_KEY, baseURL: fake.origin }) },
  sydelabs: { start: startSydeLabsFake, credentials: (fake) => ({ apiKey: SYDELABS_KEY, baseURL: fake.origin }) },
  walledai: { start: startWalledFake, credentials: (fake) => ({ apiKey: WALLED_KEY, baseURL: fake.origin }) },
  promptfoo: { start: startPromptfooFake, credentials: (fake) => ({ baseURL: fake.origin }) },
};
