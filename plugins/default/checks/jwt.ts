import { createRemoteJWKSet, customFetch, decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from "jose";
import { LRUCache } from "lru-cache";
import {
  type CheckContext,
  type CheckDefinition,
  type CheckSettings,
  defineCheck,
  displayUrl,
  GuardgateError,
  networkPolicy,
  outboundRequest,
  outboundUrlProblem,
  type Resolver,
} from "../../../core/index.js";
import { policyKey } from "../../../core/internal.js";

interface Parameters {
  jwksUri: string;
  headerKey: string;
  cacheMaxAge: number;
  clockTolerance: number;
  maxTokenAge: string | number;
  issuer?: string | string[];
  audience?: string | string[];
  algorithms?: string[];
}

/** What the jwt check depends on; tests inject a resolver and shorter waits. */
export interface JwtDependencies {
  resolver?: Resolver;
  /** Time limit of a JWKS fetch, in milliseconds (3000). */
  fetchTimeout?: number;
  /** After a fetch, how long an unknown key id waits before it may trigger another (30 s). */
  refetchCooldown?: number;
}

type KeySet = ReturnType<typeof createRemoteJWKSet>;

const MAX_JWKS_BYTES = 256 * 1024;
const DURATION = "^\\s*\\d+(\\.\\d+)?\\s*(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?|y|yrs?|years?)\\s*$";

// Verification failures that say the token is not acceptable: the check fails. Anything else
// (the JWKS cannot be fetched or read) means the check could not run: a check error.
const TOKEN_FAILURES: Record<string, string> = {
  ERR_JWT_EXPIRED: "expired",
  ERR_JWT_CLAIM_VALIDATION_FAILED: "claim_invalid",
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: "signature_invalid",
  ERR_JOSE_ALG_NOT_ALLOWED: "algorithm_not_allowed",
  ERR_JOSE_NOT_SUPPORTED: "algorithm_not_allowed",
  ERR_JWKS_NO_MATCHING_KEY: "no_matching_key",
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: "no_matching_key",
  ERR_JWS_INVALID: "malformed_token",
  ERR_JWT_INVALID: "malformed_token",
};

/** The header's value, looked up without regard to case. */
function headerValue(headers: Record<string, string>, key: string): string | undefined {
  const wanted = key.toLowerCase();
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() === wanted) return value;
  return undefined;
}

/** The token in a header value: `Bearer <token>`, or a bare token in a header of its own. */
function tokenOf(value: string, headerKey: string): string | undefined {
  const trimmed = value.trim();
  const bearer = /^bearer\s+(\S+)$/i.exec(trimmed);
  if (bearer) return bearer[1];
  if (headerKey.toLowerCase() === "authorization" || /\s/.test(trimmed) || trimmed === "") return undefined;
  return trimmed;
}

function failure(reason: string, explanation: string, headerKey: string) {
  return { verdict: false, data: { verdict: false, reason, explanation, headerKey } };
}

/** Builds the jwt check; the default export uses the system resolver and jose's waits. */
export function createJwtCheck(dependencies: JwtDependencies = {}): CheckDefinition<Parameters> {
  const fetchTimeout = dependencies.fetchTimeout ?? 3000;
  // One key set per URI, cache age and network policy; each keeps its keys for cacheMaxAge.
  const keySets = new LRUCache<string, KeySet>({ max: 100 });

  const keySetFor = (uri: string, cacheMaxAge: number, settings: CheckSettings): KeySet => {
    const key = `${policyKey(networkPolicy(settings))} ${cacheMaxAge} ${uri}`;
    let set = keySets.get(key);
    if (!set) {
      set = createRemoteJWKSet(new URL(uri), {
        cacheMaxAge: cacheMaxAge * 1000,
        timeoutDuration: fetchTimeout,
        ...(dependencies.refetchCooldown !== undefined && { cooldownDuration: dependencies.refetchCooldown }),
        [customFetch]: async (url, { signal }) => {
          const response = await outboundRequest(url, {
            headers: { accept: "application/jwk-set+json, application/json" },
            timeout: fetchTimeout,
            signal,
            maxResponseBytes: MAX_JWKS_BYTES,
            settings,
            ...(dependencies.resolver && { resolver: dependencies.resolver }),
          });
          if (response.status !== 200) {
            throw new GuardgateError("jwks_unavailable", `JWKS ${displayUrl(url)} answered HTTP ${response.status}`);
          }
          try {
            JSON.parse(response.body.toString("utf8"));
          } catch {
            throw new GuardgateError("jwks_unavailable", `JWKS ${displayUrl(url)} did not answer JSON`);
          }
          return new Response(new Uint8Array(response.body), { status: 200, headers: { "content-type": "application/json" } });
        },
      });
      keySets.set(key, set);
    }
    return set;
  };

  return defineCheck<Parameters>({
    id: "jwt",
    readsText: false,
    name: "JWT",
    description: "Checks that the request carries a JSON Web Token that verifies against a JWKS.",
    sides: ["input"],
    kind: "network",
    parameters: {
      type: "object",
      properties: {
        jwksUri: { type: "string", format: "uri", description: "The http(s) URL of the JSON Web Key Set." },
        headerKey: {
          type: "string",
          minLength: 1,
          default: "authorization",
          description:
            "The request header holding the token (any case): `Bearer <token>`, or a bare token in a header of its own.",
        },
        cacheMaxAge: {
          type: "integer",
          minimum: 0,
          default: 86400,
          description: "How long fetched keys are kept, in seconds.",
        },
        clockTolerance: {
          type: "integer",
          minimum: 0,
          default: 5,
          description: "Clock skew tolerated on exp, nbf and iat, in seconds.",
        },
        maxTokenAge: {
          anyOf: [
            { type: "string", pattern: DURATION },
            { type: "integer", minimum: 1 },
          ],
          default: "1d",
          description:
            'Oldest token accepted, by its iat claim: seconds, or a duration such as "1h", "1d" (tokens without iat fail).',
        },
        issuer: {
          anyOf: [{ type: "string" }, { type: "array", items: { type: "string" }, minItems: 1 }],
          description: "Accepted iss value(s); not checked when absent.",
        },
        audience: {
          anyOf: [{ type: "string" }, { type: "array", items: { type: "string" }, minItems: 1 }],
          description: "Accepted aud value(s); not checked when absent.",
        },
        algorithms: {
          type: "array",
          items: { type: "string", pattern: "^(RS|PS|ES)(256|384|512)$|^EdDSA$|^Ed25519$|^ES256K$" },
          minItems: 1,
          description: "Accepted signing algorithms (e.g. RS256, ES256, EdDSA); when absent, any the key set's keys support.",
        },
      },
      required: ["jwksUri"],
      additionalProperties: false,
    },
    data: {
      verdict: { type: "boolean", description: "The check's verdict." },
      explanation: { type: "string", description: "Why the token was accepted or refused." },
      reason: {
        type: "string | null",
        description:
          "Why it was refused: missing_token, malformed_token, expired, claim_invalid, signature_invalid, algorithm_not_allowed, no_matching_key; null when accepted.",
      },
      claim: { type: "string", description: "The claim that failed, when reason is claim_invalid." },
      headerKey: { type: "string", description: "The header the token was read from." },
      algorithm: { type: "string", description: "The token's alg." },
      keyId: { type: "string | null", description: "The token's kid." },
      issuer: { type: "string | null", description: "The verified token's iss." },
      subject: { type: "string | null", description: "The verified token's sub." },
      expiresAt: { type: "string | null", description: "The verified token's exp, as an ISO date." },
    },
    examples: [
      {
        parameters: {
          jwksUri: "https://auth.example.com/.well-known/jwks.json",
          issuer: "https://auth.example.com/",
          audience: "guardgate",
          failOnError: true,
        },
        description: "Callers must present a token from our identity provider.",
        verdict: false,
        data: { reason: "missing_token" },
      },
    ],
    notes: [
      "The token is read from `headerKey` (any case); in `authorization` it must be `Bearer <token>`.",
      "A missing, malformed, expired, wrongly signed or otherwise unacceptable token fails the check —",
      "never an error that could pass by default. Keys come from `jwksUri`, fetched with a 3-second",
      "limit under the gateway's network policy and kept per URI for `cacheMaxAge` seconds; a token",
      "whose `kid` is not in the cached set makes one more fetch (at most one per 30 seconds), so key",
      "rotation works. When the key set cannot be fetched, the check cannot run: that is a check error,",
      "so set `failOnError: true` to refuse requests while the identity provider is unreachable.",
    ].join("\n"),
    validate(p) {
      const problem = outboundUrlProblem(p.jwksUri);
      return problem ? { parameter: "jwksUri", message: problem } : undefined;
    },
    async run(context: CheckContext, p) {
      const raw = headerValue(context.headers, p.headerKey);
      if (raw === undefined) return failure("missing_token", `The request has no ${p.headerKey} header.`, p.headerKey);
      const token = tokenOf(raw, p.headerKey);
      if (token === undefined) {
        return failure("malformed_token", `The ${p.headerKey} header does not hold a bearer token.`, p.headerKey);
      }
      let protectedHeader: ReturnType<typeof decodeProtectedHeader>;
      try {
        protectedHeader = decodeProtectedHeader(token);
        if (token.split(".").length !== 3) throw new Error("not a compact JWS");
      } catch {
        return failure("malformed_token", `The ${p.headerKey} header does not hold a well-formed JWT.`, p.headerKey);
      }
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keySetFor(p.jwksUri, p.cacheMaxAge, context.settings), {
          clockTolerance: p.clockTolerance,
          maxTokenAge: p.maxTokenAge,
          ...(p.issuer !== undefined && { issuer: p.issuer }),
          ...(p.audience !== undefined && { audience: p.audience }),
          ...(p.algorithms !== undefined && { algorithms: p.algorithms }),
        }));
      } catch (error) {
        const reason = error instanceof errors.JOSEError ? TOKEN_FAILURES[error.code] : undefined;
        if (!reason) throw error;
        const outcome = failure(reason, `The token was refused: ${(error as Error).message}.`, p.headerKey);
        if (error instanceof errors.JWTClaimValidationFailed || error instanceof errors.JWTExpired) {
          Object.assign(outcome.data, { claim: error.claim });
        }
        return outcome;
      }
      return {
        verdict: true,
        data: {
          verdict: true,
          reason: null,
          explanation: "The token verifies against the key set.",
          headerKey: p.headerKey,
          algorithm: protectedHeader.alg,
          keyId: protectedHeader.kid ?? null,
          issuer: payload.iss ?? null,
          subject: payload.sub ?? null,
          expiresAt: typeof payload.exp === "number" ? new Date(payload.exp * 1000).toISOString() : null,
        },
      };
    },
  });
}

export default createJwtCheck();
