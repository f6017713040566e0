/**
 * Input no check can read: a completions prompt or an embeddings input given as token ids. A
 * check that reads text would find none there (or only the prompt's text entries) and pass, so
 * under an input guardrail or policy whose checks read text the request is refused with a 400
 * saying why, and the upstream is never called. Checks that judge something else (the model,
 * metadata, `notNull`) read no text and do not refuse it.
 */
import { type CheckDefinition, type Guardrail, type RequestType, tokenIdInput } from "../../core/index.js";
import { GatewayError } from "../errors.js";

/** The definition of a check by id, for what it reads. */
export type CheckLookup = (id: string) => Pick<CheckDefinition, "readsText"> | undefined;

/** The guardrails of `guardrails` with an enabled check that reads the evaluated text. */
function readers(guardrails: readonly Guardrail[], lookup: CheckLookup): Guardrail[] {
  return guardrails.filter((g) => g.checks.some((check) => check.enabled && lookup(check.id)?.readsText !== false));
}

/** Throws a 400 `input_not_checkable` when the request's input is token ids and an input guardrail would read it. */
export function assertInputCheckable(
  requestType: RequestType,
  body: unknown,
  guardrails: readonly Guardrail[],
  lookup: CheckLookup,
): void {
  const field = tokenIdInput(requestType, body);
  if (field === undefined) return;
  const reading = readers(guardrails, lookup);
  if (!reading.length) return;
  const ids = reading.map((g) => `"${g.id}"`).join(", ");
  throw new GatewayError(
    "input_not_checkable",
    `${field}: token ids cannot be read by the input guardrail${reading.length > 1 ? "s" : ""} ${ids} this request runs; send the ${field} as text`,
  );
}
