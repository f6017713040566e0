/**
 * AWS Signature Version 4, by AWS's own signer (@smithy/signature-v4 with @aws-crypto/sha256-js):
 * the headers that authenticate one request to an AWS service. The bedrock partner plugin and the
 * Bedrock provider kind sign with it, and the contract fakes re-sign with it to verify. The signer
 * is loaded on first use, so gateways that never call AWS do not load it.
 */
type SignerModules = [typeof import("@smithy/signature-v4"), typeof import("@aws-crypto/sha256-js")];
let modules: Promise<SignerModules> | undefined;

/** The AWS credentials a call is signed with. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** What is signed: the exact URL, headers and body that will be sent. */
export interface SignedRequest {
  method: "POST";
  url: URL;
  headers: Record<string, string>;
  body: string;
}

/**
 * The request's headers plus `host`, `x-amz-date`, `authorization` (and `x-amz-security-token`
 * with a session token) for `service` in `region`; `signingDate` is for tests that re-sign.
 */
export async function signRequest(
  request: SignedRequest,
  credentials: AwsCredentials,
  region: string,
  service: string,
  signingDate?: Date,
): Promise<Record<string, string>> {
  modules ??= Promise.all([import("@smithy/signature-v4"), import("@aws-crypto/sha256-js")]);
  const [{ SignatureV4 }, { Sha256 }] = await modules;
  const signer = new SignatureV4({ service, region, credentials, sha256: Sha256 });
  const query: Record<string, string> = {};
  for (const [key, value] of request.url.searchParams) query[key] = value;
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: request.url.protocol,
      hostname: request.url.hostname,
      ...(request.url.port && { port: Number(request.url.port) }),
      // The path as it goes on the wire (already percent-encoded); the signer encodes it once more, as AWS expects.
      path: request.url.pathname,
      query,
      headers: { ...request.headers, host: request.url.host },
      body: request.body,
    },
    signingDate ? { signingDate } : undefined,
  );
  return signed.headers as Record<string, string>;
}
