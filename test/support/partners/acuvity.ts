/**
 * Contract fake of Acuvity's Apex scan API, after the types of Acuvity's official TypeScript SDK
 * (`@acuvity/acuvity`, `apex.scan`: `POST /_acuvity/scan`) and its token format: the bearer token
 * is a JWT whose `opaque["apex-url"]` claim names the Apex origin. A body is `{messages,
 * type: "Input"|"Output", anonymization, redactions}`; the answer holds one extraction per message:
 * `data` (the text, redacted where asked), `exploits`, `malcontents`, `languages`, `piIs`,
 * `secrets` (name → score) and `detections` (`{type, name, score, start, end, redacted}`).
 *
 * Triggers: an instruction override scores prompt_injection 0.93 and jailbreak 0.4; an insult
 * scores toxic 0.81; an e-mail address is PII `email_address`; a text starting "Hola" is Spanish.
 */
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";
import { emails, header, INJECTION, TOXIC } from "./triggers.js";

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

/** A token shaped as Acuvity's: a JWT carrying the Apex origin in its `opaque` claim. */
export function acuvityToken(apexUrl: string): string {
  return `${base64url({ alg: "ES256", typ: "JWT" })}.${base64url({ iss: "https://api.acuvity.ai", opaque: { "apex-url": apexUrl } })}.c2lnbmF0dXJl`;
}

function extraction(text: string, redactions: readonly string[]) {
  const found = emails(text);
  const redact = redactions.includes("email_address");
  let data = text;
  if (redact) for (const f of [...found].reverse()) data = `${data.slice(0, f.start)}XXXXXXXX${data.slice(f.end)}`;
  return {
    data,
    exploits: INJECTION.test(text) ? { prompt_injection: 0.93, jailbreak: 0.4 } : {},
    malcontents: TOXIC.test(text) ? { toxic: 0.81 } : {},
    languages: text.startsWith("Hola") ? { spa_Latn: 0.97 } : { eng_Latn: 0.99 },
    ...(found.length > 0 && { piIs: { email_address: 1 } }),
    detections: found.map((f) => ({
      type: "PII",
      name: "email_address",
      score: 1,
      start: f.start,
      end: f.end,
      redacted: redact,
    })),
    hash: "0f3a",
  };
}

/** Starts the fake; `token()` is the bearer token naming its origin. */
export async function startAcuvityFake(): Promise<PartnerFake & { token(): string }> {
  let origin = "";
  const fake = await startPartnerFake({
    authorized: (request) => header(request.headers, "authorization") === `Bearer ${acuvityToken(origin)}`,
    errorBody: (status, message) => [{ code: status, title: "Error", description: message }],
    answer: (request) => {
      if (request.method !== "POST" || request.url !== "/_acuvity/scan")
        return { status: 404, body: [{ code: 404, title: "Not Found" }] };
      const body = jsonBody(request) as { messages?: unknown; type?: string; redactions?: string[] } | undefined;
      if (!Array.isArray(body?.messages) || !["Input", "Output"].includes(String(body.type))) {
        return { status: 422, body: [{ code: 422, title: "Validation Error", description: "messages and type are required" }] };
      }
      return {
        status: 200,
        body: {
          ID: "scan-1",
          decision: "Allow",
          type: body.type,
          extractions: body.messages.map((m) => extraction(String(m), body.redactions ?? [])),
        },
      };
    },
  });
  origin = fake.origin;
  return Object.assign(fake, { token: () => acuvityToken(origin) });
}
