import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { GatewayError } from "../../../errors.js";
import type { ProviderCall } from "../../kind.js";
import type { HttpProvider } from "../../provider.js";
import { credentialsFor, modelPath, regionFor, signedCall } from "./auth.js";

let home: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "bedrock-auth-"));
  for (const name of [
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_PROFILE",
  ]) {
    vi.stubEnv(name, "");
  }
  // Each test has its own files, so the cache of what they say never carries over.
  vi.stubEnv("AWS_SHARED_CREDENTIALS_FILE", join(home, "credentials"));
  vi.stubEnv("AWS_CONFIG_FILE", join(home, "config"));
});

afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(home, { recursive: true, force: true });
});

function call(options: Record<string, unknown>, trusted = true, baseUrl = ""): ProviderCall {
  const provider: HttpProvider = { kind: "http", name: "bedrock", options, baseUrl, trusted, headers: {}, identity: "x" };
  return { provider } as ProviderCall;
}

async function refusal(run: () => Promise<unknown>): Promise<GatewayError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("Bedrock credentials and region", () => {
  it("takes the options first, then the environment, then the shared files' profile", async () => {
    writeFileSync(
      join(home, "credentials"),
      "[default]\naws_access_key_id = AKIAFILE\naws_secret_access_key = file-secret\n\n[work]\naws_access_key_id = AKIAWORK\naws_secret_access_key = work-secret\naws_session_token = work-token\n",
    );
    writeFileSync(join(home, "config"), "[default]\nregion = eu-west-1\n[profile work]\nregion = ap-south-1\n");
    expect(await credentialsFor({})).toEqual({
      credentials: { accessKeyId: "AKIAFILE", secretAccessKey: "file-secret" },
      fromOptions: false,
    });
    expect(await regionFor({})).toBe("eu-west-1");
    expect((await credentialsFor({ aws_profile: "work" })).credentials).toEqual({
      accessKeyId: "AKIAWORK",
      secretAccessKey: "work-secret",
      sessionToken: "work-token",
    });
    expect(await regionFor({ aws_profile: "work" })).toBe("ap-south-1");
    vi.stubEnv("AWS_ACCESS_KEY_ID", "AKIAENV");
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", "env-secret");
    vi.stubEnv("AWS_DEFAULT_REGION", "us-east-2");
    expect((await credentialsFor({})).credentials).toEqual({ accessKeyId: "AKIAENV", secretAccessKey: "env-secret" });
    expect(await regionFor({})).toBe("us-east-2");
    const given = await credentialsFor({
      aws_access_key_id: "AKIAOPT",
      aws_secret_access_key: "opt-secret",
      aws_session_token: "opt-token",
    });
    expect(given).toEqual({
      credentials: { accessKeyId: "AKIAOPT", secretAccessKey: "opt-secret", sessionToken: "opt-token" },
      fromOptions: true,
    });
    expect(await regionFor({ aws_region: "ca-central-1" })).toBe("ca-central-1");
  });

  it("says what is missing when nothing gives credentials or a region", async () => {
    const credentials = await refusal(() => credentialsFor({}));
    expect([credentials.status, credentials.code]).toEqual([400, "provider_not_configured"]);
    expect(credentials.message).toContain("no AWS credentials");
    expect((await refusal(() => regionFor({}))).message).toContain("no region");
  });

  it("signs a call to the region's endpoint, or to the provider's base_url", async () => {
    const options = {
      aws_access_key_id: "AKIAOPT",
      aws_secret_access_key: "opt-secret",
      aws_session_token: "opt-token",
      aws_region: "us-west-2",
    };
    const path = `${modelPath("arn:aws:bedrock:us-west-2:123456789012:inference-profile/us.anthropic.claude-3-5-sonnet-20240620-v1:0")}/converse`;
    const native = await signedCall(call(options), path, { messages: [] }, "application/json");
    expect(native.url).toBe(
      "https://bedrock-runtime.us-west-2.amazonaws.com/model/arn%3Aaws%3Abedrock%3Aus-west-2%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse",
    );
    expect(native.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAOPT\/\d{8}\/us-west-2\/bedrock\/aws4_request, /,
    );
    expect(native.headers["x-amz-security-token"]).toBe("opt-token");
    expect(native.headers.host).toBeUndefined();
    expect(JSON.stringify(native)).not.toContain("opt-secret");
    expect((await signedCall(call(options, true, "http://127.0.0.1:9"), "/model/m/invoke", {}, "application/json")).url).toBe(
      "http://127.0.0.1:9/model/m/invoke",
    );
  });

  it("never signs with the gateway's own credentials for a host the request chose", async () => {
    vi.stubEnv("AWS_ACCESS_KEY_ID", "AKIAENV");
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", "env-secret");
    const error = await refusal(() =>
      signedCall(call({ aws_region: "us-west-2" }, false, "http://127.0.0.1:9"), "/model/m/converse", {}, "application/json"),
    );
    expect([error.status, error.code]).toEqual([400, "custom_host_needs_credentials"]);
    const own = { aws_access_key_id: "AKIAOPT", aws_secret_access_key: "opt-secret", aws_region: "us-west-2" };
    expect((await signedCall(call(own, false, "http://127.0.0.1:9"), "/model/m/converse", {}, "application/json")).url).toBe(
      "http://127.0.0.1:9/model/m/converse",
    );
  });
});
