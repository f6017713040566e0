import { type CheckDefinition, defineCheck, displayUrl, outboundRequest, type Resolver } from "../../../core/index.js";
import { evaluationPayload } from "../shared/evaluation-context.js";
import { HEADERS_SCHEMA, type HeadersParameter, outboundProblem, validHeaders } from "../shared/outbound-parameters.js";
import { readWebhookAnswer, WebhookError } from "../shared/webhook-answer.js";
import { SIGNATURE_HEADER, signatureHeader } from "../shared/webhook-signature.js";

interface Parameters {
  webhookURL: string;
  headers?: HeadersParameter;
  timeout: number;
  maxResponseBytes: number;
}

/** What the webhook check depends on; tests inject a resolver. */
export interface WebhookDependencies {
  resolver?: Resolver;
}

const NOTES = `
**What the receiver gets.** A \`POST\` with a JSON body: \`guardrailId\`, \`side\` (\`input\` or
\`output\`), \`eventType\` (\`beforeRequestHook\` / \`afterRequestHook\`), \`requestType\`,
\`provider\`, \`model\`, \`text\` (the evaluated text), \`request: {json, text}\`,
\`response: {json, text}\` (\`json\` is null on the input side) and \`metadata\`. Request headers and
credentials are never sent: not the caller's \`authorization\`, \`x-gateway-*\` or provider keys,
and not the check's own credentials.

**Signature.** When the check has a secret (\`credentials: {"secret": "..."}\` in its parameters,
which the engine hands to the check and never echoes), every call carries
\`x-guardgate-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">\`. Verify it over the
raw body and reject old timestamps to refuse replays (docs/webhooks.md, "Verifying the signature"). Without a secret
the call is unsigned and \`data.signed\` is false.

**The answer.** \`{"verdict": true|false, "data"?: {...}, "transformedData"?: {"request": {"json":
...}, "response": {"json": ...}}}\` with a 2xx status. A missing or non-boolean \`verdict\`, a body
that is not JSON, a non-2xx status (redirects included: they are never followed), a body over
\`maxResponseBytes\`, or no answer within \`timeout\` is a check error, so \`failOnError\` decides
whether the guardrail fails.

**Transforms.** A transformed body of the evaluated side (\`request\` on the input side, \`response\`
on the output side; the other is ignored) replaces the original only when it keeps the request
type's shape: a JSON object whose evaluated text still has its place, and on a request the same
\`model\` and \`stream\`. Otherwise the check errors and nothing is replaced.

**Network policy.** The URL must be http or https, without credentials in it. Private, loopback and
link-local addresses are refused unless the gateway's settings allow them (\`allowPrivateAddresses\`,
\`allowLoopback\`, \`internalHosts\`); cloud metadata addresses always are. See docs/webhooks.md.
`.trim();

/** Builds the webhook check; the default export uses the system resolver. */
export function createWebhookCheck(dependencies: WebhookDependencies = {}): CheckDefinition<Parameters> {
  return defineCheck<Parameters>({
    id: "webhook",
    readsText: false,
    name: "Webhook",
    description: "Posts the evaluation to your HTTP endpoint, whose answer decides the verdict and may transform the body.",
    sides: ["input", "output"],
    kind: "network",
    transforms: true,
    parameters: {
      type: "object",
      properties: {
        webhookURL: { type: "string", format: "uri", description: "The http(s) URL to POST the evaluation to." },
        headers: HEADERS_SCHEMA,
        timeout: {
          type: "integer",
          minimum: 1,
          maximum: 60_000,
          default: 3000,
          description: "Time limit of the whole call, in milliseconds.",
        },
        maxResponseBytes: {
          type: "integer",
          minimum: 1024,
          maximum: 16 * 1024 * 1024,
          default: 1024 * 1024,
          description: "Largest answer accepted, in bytes (a transformed body must fit).",
        },
      },
      required: ["webhookURL"],
      additionalProperties: false,
    },
    data: {
      verdict: { type: "boolean", description: "The verdict the webhook returned." },
      explanation: { type: "string", description: "What the webhook decided." },
      webhookUrl: { type: "string", description: "The URL called, without its query string." },
      status: { type: "number", description: "The HTTP status of the answer." },
      signed: { type: "boolean", description: "Whether the call carried an x-guardgate-signature." },
      transformed: { type: "boolean", description: "Whether the webhook's transformed body replaced the original." },
      responseData: { type: "object | null", description: "The `data` object of the webhook's answer." },
    },
    examples: [
      {
        parameters: {
          webhookURL: "https://guardrails.example.com/check",
          headers: { "x-team": "search" },
          timeout: 2000,
          credentials: { secret: "whsec_…" },
        },
        description: "A signed call with a 2-second limit.",
      },
    ],
    notes: NOTES,
    validate: (p) => outboundProblem("webhookURL", p.webhookURL, p.headers),
    async run(context, { webhookURL, headers, timeout, maxResponseBytes }) {
      const body = JSON.stringify(evaluationPayload(context, { headers: false }));
      const secret = context.credentials?.secret;
      const signed = typeof secret === "string" && secret !== "";
      const sent: Record<string, string> = {
        ...validHeaders(headers),
        "content-type": "application/json",
        accept: "application/json",
      };
      if (signed) sent[SIGNATURE_HEADER] = signatureHeader(secret, body);
      const response = await outboundRequest(webhookURL, {
        method: "POST",
        headers: sent,
        body,
        timeout,
        signal: context.signal,
        maxResponseBytes,
        settings: context.settings,
        ...(dependencies.resolver && { resolver: dependencies.resolver }),
      });
      const where = `webhook ${displayUrl(webhookURL)}`;
      if (response.status >= 300 && response.status < 400) {
        throw new WebhookError(
          "webhook_status",
          `${where} answered with a redirect (HTTP ${response.status}); redirects are not followed`,
        );
      }
      if (response.status < 200 || response.status >= 300) {
        throw new WebhookError("webhook_status", `${where} answered HTTP ${response.status}`);
      }
      const input = context.side === "input";
      let answer: ReturnType<typeof readWebhookAnswer>;
      try {
        answer = readWebhookAnswer(response.body, {
          side: context.side,
          requestType: context.requestType,
          original: input ? context.request : context.response,
        });
      } catch (error) {
        if (error instanceof WebhookError) throw new WebhookError(error.code, `${where}: ${error.message}`);
        throw error;
      }
      const transformed = answer.transformed !== undefined;
      return {
        verdict: answer.verdict,
        data: {
          verdict: answer.verdict,
          explanation: `The webhook answered verdict ${answer.verdict}${transformed ? ` and transformed the ${input ? "request" : "response"}` : ""}.`,
          webhookUrl: displayUrl(webhookURL),
          status: response.status,
          signed,
          transformed,
          responseData: answer.data,
        },
        ...(transformed && (input ? { transformedRequest: answer.transformed } : { transformedResponse: answer.transformed })),
      };
    },
  });
}

export default createWebhookCheck();
