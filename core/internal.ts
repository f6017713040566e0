/**
 * Core's internal entry: what guardgate's own plugins, server and CLI share with core but a
 * plugin author or library user should not build on. It may change in any release; code outside
 * guardgate uses core/index.ts (the `guardgate` package) only.
 */
export { expandShorthand, GUARDRAIL_KEYS, prepareGuardrail } from "./config/definition.js";
export { checkConfigKeys, nearestKey, PROVIDER_OPTION_KEYS } from "./config/keys.js";
export { normalizeGuardrails, prepareListElement } from "./config/normalize.js";
export { joinPath, joinPointer } from "./config/path.js";
export { type BodyPath, PART_SEPARATOR, setAtPath, slotWrites, splitOverSlots } from "./content.js";
export { isCredentialHeader } from "./credential-headers.js";
export { type AwsCredentials, type SignedRequest, signRequest } from "./net/aws-sigv4.js";
export { type AddressPolicy, addressAllowed, classifyAddress, PUBLIC_ONLY } from "./net/address-policy.js";
export { resolveWithPolicy } from "./net/lookup.js";
export { addressPermitted, policyKey } from "./net/network-policy.js";
export { parameterError } from "./parameters.js";
export { isObject } from "./plain-data.js";
export { runPhase } from "./phase/run-phase.js";
export { DEFAULT_IDLE_INLINE_BUDGET_US, DEFAULT_INLINE_BUDGET_US } from "./pool/auto-executor.js";
export { CheckCosts } from "./pool/check-costs.js";
export { HAND_OVER } from "./pool/pool-executor.js";
export { compiledModule, packageRoot } from "./pool/worker-entry.js";
export { ThreadShare } from "./thread-share.js";
export { hasDuplicateKeys } from "./json-strings.js";
export { type CountOptions, countTokens, type Encoding, ENCODINGS, loadEncoding, type TokenCount } from "./tokens.js";
export {
  clearServiceAccountTokens,
  DEFAULT_TOKEN_URI,
  type GrantedToken,
  type PostTokenExchange,
  type ServiceAccount,
  ServiceAccountKeyError,
  serviceAccountToken,
  type TokenExchange,
} from "./net/google-token.js";
export { type RenewableToken, TokenCache } from "./net/token-cache.js";
