/**
 * The kit every partner plugin (one third-party guardrail service's checks) is built with: the
 * one outbound call, credentials and endpoint override, answer reading, the decision kept in
 * `data`, redaction, the shared parameters, and the facts the partner reference is generated from.
 */
export { type FieldType, optionalField, requiredField } from "./answer.js";
export {
  callFacts,
  callPartner,
  type PartnerAnswer,
  type PartnerRequest,
  type PartnerService,
  retryAfterSeconds,
} from "./call.js";
export { definePartner, type PartnerCheckFacts, type PartnerPlugin } from "./catalog.js";
export {
  BASE_URL_CREDENTIAL,
  baseUrlCredential,
  optionalCredential,
  partnerBaseUrl,
  partnerUrl,
  requiredCredential,
} from "./credentials.js";
export { decisionData, nothingToEvaluate, OMITTED_TEXT } from "./decision.js";
export { PartnerError, type PartnerErrorCode } from "./errors.js";
export { DEFAULT_PARTNER_TIMEOUT, PARTNER_DATA, partnerNotes, REDACT_PARAMETER, TIMEOUT_PARAMETER } from "./parameters.js";
export { type LabelledSpan, maskSpans, redactionOutcome } from "./redaction.js";
export { type PlainMessage, plainMessages } from "./conversation.js";
