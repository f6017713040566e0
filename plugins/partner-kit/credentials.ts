/**
 * Reading a partner check's credentials. The runner has already chosen them (the check's
 * `parameters.credentials` win over the service's integration for the request's workspace) and
 * validated them against the plugin's credentials schema; what is left is naming fields the peer
 * gateway spells differently, and the endpoint override: `baseURL` (or the vendor's own endpoint
 * field) replaces the vendor's default host, for regional, private and self-hosted deployments.
 */
import { outboundUrlProblem } from "../../core/index.js";
import type { CheckContext, JsonSchema } from "../../core/index.js";
import type { PartnerService } from "./call.js";
import { PartnerError } from "./errors.js";

/** Schema of the `baseURL` credential every partner plugin accepts. */
export const BASE_URL_CREDENTIAL: JsonSchema = {
  type: "string",
  minLength: 1,
  description:
    "Replaces the service's default endpoint (scheme, host and an optional path prefix): a regional or private deployment, or a test double. Private and loopback hosts need the gateway's network settings.",
};

type Credentials = CheckContext["credentials"];

/** The first of `names` the credentials hold as a non-empty string, or undefined. */
export function optionalCredential(credentials: Credentials, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = credentials?.[name];
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
}

/** The first of `names` the credentials hold; a PartnerError naming the field when none is there. */
export function requiredCredential(service: PartnerService, credentials: Credentials, names: readonly string[]): string {
  const value = optionalCredential(credentials, names);
  if (value === undefined) {
    throw new PartnerError(
      "partner_credentials_invalid",
      `${service.name} needs credentials.${names[0]}${names.length > 1 ? ` (or ${names.slice(1).join(", ")})` : ""}: add it to the ${service.id} integration or the check's parameters.credentials`,
    );
  }
  return value;
}

/**
 * The base URL of the calls: the first override the credentials hold (`baseURL`, then the
 * vendor's own fields), else `fallback`; without a trailing slash.
 */
export function partnerBaseUrl(
  service: PartnerService,
  credentials: Credentials,
  fallback: string,
  vendorFields: readonly string[] = [],
): string {
  const fields = ["baseURL", ...vendorFields];
  const override = optionalCredential(credentials, fields);
  const base = override ?? fallback;
  const problem = outboundUrlProblem(base);
  if (problem) {
    const field = fields.find((f) => credentials?.[f] === override);
    throw new PartnerError(
      "partner_credentials_invalid",
      override === undefined
        ? `${service.name}: the endpoint built from the credentials ${problem}`
        : `${service.name}: credentials.${field} ${problem}`,
    );
  }
  return base.replace(/\/+$/, "");
}

/** `base` + `path` (which starts with a slash) + the query, each value encoded. */
export function partnerUrl(base: string, path: string, query: Record<string, string | undefined> = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) search.set(key, value);
  const qs = search.toString();
  return `${base}${path}${qs ? `?${qs}` : ""}`;
}

/** The `baseURL` credential's schema, naming the service's default endpoint. */
export function baseUrlCredential(defaultEndpoint: string): JsonSchema {
  return { ...BASE_URL_CREDENTIAL, description: `${String(BASE_URL_CREDENTIAL.description)} Default ${defaultEndpoint}.` };
}
