import {
  type CheckDefinition,
  defineCheck,
  displayUrl,
  GuardgateError,
  outboundRequest,
  type Resolver,
} from "../../../core/index.js";
import { evaluationPayload } from "../shared/evaluation-context.js";
import { HEADERS_SCHEMA, type HeadersParameter, outboundProblem, validHeaders } from "../shared/outbound-parameters.js";

interface Parameters {
  logURL: string;
  headers?: HeadersParameter;
  timeout: number;
}

/** What the log check depends on; tests inject a resolver. */
export interface LogDependencies {
  resolver?: Resolver;
}

// The sink's answer is not used; read only enough of it to keep the connection reusable.
const MAX_SINK_ANSWER = 64 * 1024;

/** Builds the log check; the default export uses the system resolver. */
export function createLogCheck(dependencies: LogDependencies = {}): CheckDefinition<Parameters> {
  return defineCheck<Parameters>({
    id: "log",
    readsText: false,
    name: "Log to a URL",
    description: "Posts the evaluation to a log sink and passes.",
    sides: ["input", "output"],
    // On a held stream, one post of the whole answer, not one per window.
    streamScope: "whole",
    kind: "network",
    parameters: {
      type: "object",
      properties: {
        logURL: { type: "string", format: "uri", description: "The http(s) URL of the log sink." },
        headers: HEADERS_SCHEMA,
        timeout: {
          type: "integer",
          minimum: 1,
          maximum: 60_000,
          default: 3000,
          description: "Time limit of the call, in milliseconds.",
        },
      },
      required: ["logURL"],
      additionalProperties: false,
    },
    data: {
      logged: { type: "boolean", description: "True: the sink accepted the entry." },
      logUrl: { type: "string", description: "The sink's URL, without its query string." },
      status: { type: "number", description: "The HTTP status of the sink's answer." },
      explanation: { type: "string", description: "What happened." },
    },
    examples: [
      {
        parameters: { logURL: "https://logs.example.com/guardgate", headers: { "x-sink-token": "…" } },
        description: "Ship every evaluation to a collector.",
      },
    ],
    notes: [
      "The sink receives a `POST` with the webhook check's JSON body (see `webhook`) plus `headers`: the",
      "request headers without any that may carry a credential (`authorization`, `cookie`, `x-api-key`,",
      "`x-gateway-*`, and any name made of words like key, token, secret, auth, session) and `loggedAt`.",
      "The check passes whenever the sink answers 2xx. A sink that is down, slow, answers another status",
      "(a redirect included: none is followed) or sits on a refused address is a check error: with",
      "`failOnError` the guardrail fails, otherwise the error is only recorded. The URL is called under the",
      "gateway's network policy: private, loopback and link-local addresses only when the settings allow",
      "them, cloud metadata addresses never (docs/webhooks.md).",
    ].join("\n"),
    validate: (p) => outboundProblem("logURL", p.logURL, p.headers),
    async run(context, { logURL, headers, timeout }) {
      const entry = { ...evaluationPayload(context, { headers: true }), loggedAt: new Date().toISOString() };
      const response = await outboundRequest(logURL, {
        method: "POST",
        headers: { ...validHeaders(headers), "content-type": "application/json" },
        body: JSON.stringify(entry),
        timeout,
        signal: context.signal,
        maxResponseBytes: MAX_SINK_ANSWER,
        readBody: false,
        settings: context.settings,
        ...(dependencies.resolver && { resolver: dependencies.resolver }),
      });
      const logUrl = displayUrl(logURL);
      if (response.status < 200 || response.status >= 300) {
        const redirect = response.status >= 300 && response.status < 400 ? "; redirects are not followed" : "";
        throw new GuardgateError("log_sink_status", `log sink ${logUrl} answered HTTP ${response.status}${redirect}`);
      }
      return {
        verdict: true,
        data: { logged: true, logUrl, status: response.status, explanation: `Logged the evaluation to ${logUrl}.` },
      };
    },
  });
}

export default createLogCheck();
