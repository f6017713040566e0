/**
 * Where a Bedrock call goes and who signs it. Credentials come from the provider's options
 * (`aws_access_key_id`, `aws_secret_access_key`, `aws_session_token`), else from the standard AWS
 * chain: the environment (`AWS_ACCESS_KEY_ID`, …), then the shared files (`~/.aws/credentials` and
 * `~/.aws/config`, or the files `AWS_SHARED_CREDENTIALS_FILE` / `AWS_CONFIG_FILE` name) for the
 * profile `aws_profile` or `AWS_PROFILE` names. The region follows the same order. The URL is the
 * provider's `base_url` when it has one (a proxy, a VPC endpoint, a test fake), else the region's
 * `bedrock-runtime` endpoint. Every call is signed with Signature Version 4 (service `bedrock`).
 */
import { type AwsCredentials, signRequest } from "../../../../core/internal.js";
import { GatewayError } from "../../../errors.js";
import type { Json, NativeCall, ProviderCall } from "../../kind.js";

/** AWS's region names: `us-east-1`, `eu-central-2`, `us-gov-west-1`; anything else never reaches a URL. */
export const REGION_PATTERN = "^[a-z]{2}(-[a-z]+)+-\\d+$";
const REGION = new RegExp(REGION_PATTERN);

/** How long what the shared files say is kept: tools that refresh them (aws sso login) are seen within a minute. */
const SHARED_FILES_TTL_MS = 60_000;

interface SharedProfile {
  credentials?: AwsCredentials;
  region?: string;
}

const sharedProfiles = new Map<string, { at: number; profile: Promise<SharedProfile> }>();

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function keysOf(source: Record<string, unknown> | undefined, names: [string, string, string]): AwsCredentials | undefined {
  const accessKeyId = text(source?.[names[0]]);
  const secretAccessKey = text(source?.[names[1]]);
  if (!accessKeyId || !secretAccessKey) return undefined;
  const sessionToken = text(source?.[names[2]]);
  return { accessKeyId, secretAccessKey, ...(sessionToken && { sessionToken }) };
}

const OPTION_KEYS: [string, string, string] = ["aws_access_key_id", "aws_secret_access_key", "aws_session_token"];
const ENV_KEYS: [string, string, string] = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"];

function profileName(options: Json): string {
  return text(options.aws_profile) ?? text(process.env.AWS_PROFILE) ?? "default";
}

/** A profile of the shared files, read at most once a minute; files that are absent hold nothing. */
function sharedProfile(name: string): Promise<SharedProfile> {
  const key = `${name}|${process.env.AWS_SHARED_CREDENTIALS_FILE ?? ""}|${process.env.AWS_CONFIG_FILE ?? ""}|${process.env.HOME ?? ""}`;
  const cached = sharedProfiles.get(key);
  if (cached && Date.now() - cached.at < SHARED_FILES_TTL_MS) return cached.profile;
  // Loaded on first use, as the signer is: gateways without Bedrock providers never load either.
  const files = import("@smithy/core/config").then(({ loadSharedConfigFiles }) => loadSharedConfigFiles({ ignoreCache: true }));
  const profile = files.then(({ configFile, credentialsFile }) => {
    const config = configFile[name];
    const credentials = keysOf(credentialsFile[name], OPTION_KEYS) ?? keysOf(config, OPTION_KEYS);
    const region = text(config?.region);
    return { ...(credentials && { credentials }), ...(region && { region }) };
  });
  sharedProfiles.set(key, { at: Date.now(), profile });
  return profile;
}

/** Where the credentials of a call came from: the gateway's own (environment, files) may only go to a host the operator chose. */
export interface ResolvedCredentials {
  credentials: AwsCredentials;
  fromOptions: boolean;
}

/** The credentials a provider's calls are signed with; throws naming what is missing. */
export async function credentialsFor(options: Json): Promise<ResolvedCredentials> {
  const given = keysOf(options, OPTION_KEYS);
  if (given) return { credentials: given, fromOptions: true };
  const env = keysOf(process.env, ENV_KEYS);
  if (env) return { credentials: env, fromOptions: false };
  const profile = profileName(options);
  const shared = (await sharedProfile(profile)).credentials;
  if (shared) return { credentials: shared, fromOptions: false };
  throw new GatewayError(
    "provider_not_configured",
    `Amazon Bedrock: no AWS credentials: set aws_access_key_id and aws_secret_access_key on the provider, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the gateway's environment, or profile "${profile}" in the shared AWS files`,
  );
}

/** The region of a provider's calls; throws naming what is missing. */
export async function regionFor(options: Json): Promise<string> {
  const region =
    text(options.aws_region) ??
    text(process.env.AWS_REGION) ??
    text(process.env.AWS_DEFAULT_REGION) ??
    (await sharedProfile(profileName(options))).region;
  if (!region) {
    throw new GatewayError(
      "provider_not_configured",
      "Amazon Bedrock: no region: set aws_region on the provider, AWS_REGION in the gateway's environment, or region in the shared AWS config file",
    );
  }
  if (!REGION.test(region)) {
    throw new GatewayError("provider_not_configured", `Amazon Bedrock: "${region}" is not an AWS region name`);
  }
  return region;
}

/**
 * A signed POST of `body` to `path` (under `/model/{modelId}`) of the provider's Bedrock runtime.
 * The gateway's own credentials never go to a host a client chose with `custom_host`.
 */
export async function signedCall(call: ProviderCall, path: string, body: Json, accept: string): Promise<NativeCall> {
  const { provider } = call;
  const [{ credentials, fromOptions }, region] = await Promise.all([
    credentialsFor(provider.options),
    regionFor(provider.options),
  ]);
  if (!provider.trusted && !fromOptions) {
    throw new GatewayError(
      "custom_host_needs_credentials",
      "custom_host: Amazon Bedrock calls to a host the request chose are signed only with credentials the config gives (aws_access_key_id, aws_secret_access_key), never with the gateway's own",
    );
  }
  const base = provider.baseUrl || `https://bedrock-runtime.${region}.amazonaws.com`;
  const url = new URL(`${base}${path}`);
  const text = JSON.stringify(body);
  const headers = { ...provider.headers, "content-type": "application/json", accept };
  const signed = await signRequest({ method: "POST", url, headers, body: text }, credentials, region, "bedrock");
  // undici writes `host` from the URL, the same value that was signed.
  const { host: _host, ...sent } = signed;
  return { url: url.href, headers: sent, body: text };
}

/** `/model/{modelId}`: a model id, inference profile id or ARN, as one path segment. */
export function modelPath(model: unknown): string {
  if (typeof model !== "string" || model === "") {
    throw new GatewayError("invalid_model", "model: Amazon Bedrock needs a model id, inference profile id or ARN");
  }
  return `/model/${encodeURIComponent(model)}`;
}
