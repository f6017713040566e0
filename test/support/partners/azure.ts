/**
 * Contract fake of Azure AI Content Safety and Azure AI Language. Follows the public REST
 * references: https://learn.microsoft.com/en-us/rest/api/contentsafety/text-operations
 * (`POST /contentsafety/text:analyze`, `text:shieldPrompt`, `text:detectProtectedMaterial`,
 * `?api-version=2024-09-01`) and https://learn.microsoft.com/en-us/rest/api/language/analyze-text/analyze-text
 * (`POST /language/:analyze-text`, kind `PiiEntityRecognition`); the key in
 * `Ocp-Apim-Subscription-Key`; errors as `{error: {code, message}}`.
 *
 * Decisions from marker words: "kill" is Violence at severity 4 (6 on the eight-level scale),
 * "hate you" Hate at 2; a blocklist named "banned" matches "forbiddenword"; "ignore previous
 * instructions" is a prompt attack; "lorem lyrics" is protected material; emails and runs of
 * 7+ digits are personal data (Email, PhoneNumber), masked with `*` in `redactedText`.
 */
import type { ReceivedRequest } from "../http-server.js";
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";

/** The key the fake accepts. */
export const AZURE_KEY = "azure-fake-key-0123456789abcdef";

type Body = Record<string, unknown>;

function error(code: string, message: string) {
  return { error: { code, message } };
}

function analyze(body: Body) {
  const text = String(body.text ?? "");
  const eight = body.outputType === "EightSeverityLevels";
  const categories = (body.categories as string[] | undefined) ?? ["Hate", "SelfHarm", "Sexual", "Violence"];
  const severity = (category: string): number => {
    if (category === "Violence" && /\bkill\b/i.test(text)) return eight ? 6 : 4;
    if (category === "Hate" && /hate you/i.test(text)) return 2;
    return 0;
  };
  const blocklists = (body.blocklistNames as string[] | undefined) ?? [];
  const blocklistsMatch =
    blocklists.includes("banned") && /forbiddenword/i.test(text)
      ? [{ blocklistName: "banned", blocklistItemId: "7f1c0e42-item", blocklistItemText: "forbiddenword" }]
      : [];
  return {
    blocklistsMatch,
    categoriesAnalysis:
      blocklistsMatch.length && body.haltOnBlocklistHit
        ? []
        : categories.map((category) => ({ category, severity: severity(category) })),
  };
}

const ATTACK = /ignore (all )?previous instructions/i;
const PII = /[\w.+-]+@[\w-]+\.[\w.]+|\d{7,}/g;

function pii(body: Body) {
  const documents =
    ((body.analysisInput as Body | undefined)?.documents as Array<{ id: string; text: string }> | undefined) ?? [];
  return {
    kind: "PiiEntityRecognitionResults",
    results: {
      documents: documents.map((d) => {
        const entities = [...d.text.matchAll(PII)].map((m) => ({
          text: m[0],
          category: m[0].includes("@") ? "Email" : "PhoneNumber",
          offset: m.index ?? 0,
          length: m[0].length,
          confidenceScore: 0.8,
        }));
        return { id: d.id, redactedText: d.text.replace(PII, (s) => "*".repeat(s.length)), entities, warnings: [] };
      }),
      errors: [],
      modelVersion: "2024-04-15",
    },
  };
}

function route(r: ReceivedRequest): { status: number; body: unknown; headers?: Record<string, string> } {
  const url = new URL(r.url, "http://fake");
  if (r.method !== "POST") return { status: 405, body: error("MethodNotAllowed", "POST only") };
  if (!url.searchParams.get("api-version")) {
    return { status: 404, body: error("404", "Resource not found") };
  }
  const body = (jsonBody(r) ?? {}) as Body;
  const headers = { "apim-request-id": "azure-req-1" };
  switch (url.pathname) {
    case "/contentsafety/text:analyze":
      if (typeof body.text !== "string") return { status: 400, body: error("InvalidRequestBody", "text is required") };
      return { status: 200, body: analyze(body), headers };
    case "/contentsafety/text:shieldPrompt": {
      const documents = (body.documents as string[] | undefined) ?? [];
      return {
        status: 200,
        headers,
        body: {
          userPromptAnalysis: { attackDetected: ATTACK.test(String(body.userPrompt ?? "")) },
          documentsAnalysis: documents.map((d) => ({ attackDetected: ATTACK.test(d) })),
        },
      };
    }
    case "/contentsafety/text:detectProtectedMaterial":
      return {
        status: 200,
        headers,
        body: { protectedMaterialAnalysis: { detected: /lorem lyrics/i.test(String(body.text ?? "")) } },
      };
    case "/language/:analyze-text":
      if (body.kind !== "PiiEntityRecognition") return { status: 400, body: error("InvalidArgument", "unsupported kind") };
      return { status: 200, headers, body: pii(body) };
    default:
      return { status: 404, body: error("404", "Resource not found") };
  }
}

/** Starts the fake. */
export function startAzureFake(): Promise<PartnerFake> {
  return startPartnerFake({
    authorized: (r) => r.headers["ocp-apim-subscription-key"] === AZURE_KEY,
    errorBody: (status, message) =>
      status === 401
        ? error("401", `Access denied due to invalid subscription key or wrong API endpoint. ${message}`)
        : error(status === 429 ? "TooManyRequests" : status >= 500 ? "InternalServerError" : "InvalidRequestBody", message),
    answer: route,
  });
}
