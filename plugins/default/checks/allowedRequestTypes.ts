import { defineCheck, GuardgateError } from "../../../core/index.js";

type TypeList = string[] | string;

interface Parameters {
  allowedTypes?: TypeList;
  blockedTypes?: TypeList;
}

const TYPE_LIST = {
  anyOf: [
    { type: "array", items: { type: "string", pattern: "^[A-Za-z][\\w-]*$" } },
    { type: "string", description: "Comma-separated names." },
  ],
};

/** A list given as an array or a comma-separated string, trimmed, without empty names. */
export function typeList(value: TypeList | undefined): string[] {
  const items = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : [];
  return items.map((t) => t.trim()).filter((t) => t !== "");
}

/**
 * Whether a list entry covers the current request type: `chatComplete` covers chat requests with or
 * without streaming; `stream-chatComplete` covers streaming chat requests only. Names compare
 * exactly, as the endpoint names do.
 */
function covers(entry: string, type: string, streaming: boolean): boolean {
  return entry === type || (streaming && entry === `stream-${type}`);
}

function conflicts(allowed: string[], blocked: string[]): string[] {
  return allowed.filter((t) => blocked.includes(t));
}

/**
 * Allows or blocks request types (the endpoint kind: chatComplete, complete, embed, messages, their
 * `stream-` variants, or another endpoint name). Lists come from the parameters; when a list is
 * not given there, from the request metadata (`supported_endpoints`, `blocked_endpoints`, comma-
 * separated). With both lists, blocked wins and the type must also be allowed.
 */
export default defineCheck<Parameters>({
  id: "allowedRequestTypes",
  readsText: false,
  name: "Allowed request types",
  description: "Checks that the request's type (chat, completion, embedding, messages, …) is allowed.",
  sides: ["input"],
  parameters: {
    type: "object",
    properties: {
      allowedTypes: {
        ...TYPE_LIST,
        description:
          "Request types allowed (array, or comma-separated): chatComplete, complete, embed, messages, stream-… variants, or other endpoint names.",
      },
      blockedTypes: { ...TYPE_LIST, description: "Request types refused (array, or comma-separated); blocked wins." },
    },
    additionalProperties: false,
  },
  data: {
    currentRequestType: { type: "string", description: "The request's type, `stream-` prefixed for a streaming request." },
    allowedTypes: { type: "string[]", description: 'The allow-list applied (`["all"]` when unrestricted).' },
    blockedTypes: { type: "string[]", description: "The block-list applied." },
    mode: { type: "string", description: "`unrestricted`, `allowlist`, `blocklist` or `combined`." },
    source: {
      type: "string",
      description: "Where the deciding list came from: `parameters`, `metadata`, or `default` (no list anywhere).",
    },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "Why the check passed or failed." },
  },
  examples: [
    {
      parameters: { allowedTypes: ["chatComplete", "messages"] },
      description: "Chat and messages only.",
      requestType: "messages",
      verdict: true,
    },
    {
      parameters: { blockedTypes: "embed,stream-chatComplete" },
      description: "No embeddings, no streamed chat.",
      requestType: "embed",
      verdict: false,
    },
  ],
  notes: [
    "A plain name covers the streaming variant too (`chatComplete` allows or blocks streamed chat as",
    "well); a `stream-` name covers only the streaming variant. A request streams when its body has",
    "`stream: true`. A type in both lists is a config error when the lists come from parameters, and a",
    "check error when they come from metadata.",
  ].join("\n"),
  validate({ allowedTypes, blockedTypes }) {
    const both = conflicts(typeList(allowedTypes), typeList(blockedTypes));
    if (both.length) {
      return { parameter: "blockedTypes", message: `${both.join(", ")} appear in both allowedTypes and blockedTypes` };
    }
    return undefined;
  },
  run(context, parameters) {
    const fromParameters = { allowed: typeList(parameters.allowedTypes), blocked: typeList(parameters.blockedTypes) };
    const allowed = fromParameters.allowed.length ? fromParameters.allowed : typeList(context.metadata.supported_endpoints);
    const blocked = fromParameters.blocked.length ? fromParameters.blocked : typeList(context.metadata.blocked_endpoints);
    const both = conflicts(allowed, blocked);
    if (both.length) {
      throw new GuardgateError(
        "request_types_conflict",
        `allowedRequestTypes: ${both.join(", ")} appear both as allowed and as blocked (parameters or metadata supported_endpoints / blocked_endpoints)`,
      );
    }
    const type = context.requestType;
    const streaming = (context.request as { stream?: unknown } | null)?.stream === true;
    const current = streaming ? `stream-${type}` : type;
    const isBlocked = blocked.some((e) => covers(e, type, streaming));
    const isAllowed = allowed.some((e) => covers(e, type, streaming));
    const mode =
      allowed.length && blocked.length
        ? "combined"
        : allowed.length
          ? "allowlist"
          : blocked.length
            ? "blocklist"
            : "unrestricted";
    const verdict = !isBlocked && (allowed.length === 0 || isAllowed);
    const decidedByBlocked = isBlocked || (mode === "blocklist" && verdict);
    const originOf = (list: "allowed" | "blocked") => (fromParameters[list].length ? "parameters" : "metadata");
    const source = mode === "unrestricted" ? "default" : originOf(decidedByBlocked ? "blocked" : "allowed");
    const explanation = isBlocked
      ? `Request type "${current}" is blocked.`
      : mode === "unrestricted"
        ? `Request type "${current}" is allowed (no restrictions configured).`
        : verdict
          ? `Request type "${current}" is allowed${mode === "blocklist" ? " (not in the block-list)" : ""}.`
          : `Request type "${current}" is not in the allowed types: ${allowed.join(", ")}.`;
    return {
      verdict,
      data: {
        currentRequestType: current,
        allowedTypes: mode === "unrestricted" ? ["all"] : allowed,
        blockedTypes: blocked,
        mode,
        source,
        verdict,
        explanation,
      },
    };
  },
});
