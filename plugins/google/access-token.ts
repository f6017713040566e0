/**
 * OAuth access tokens for Google Cloud calls: a token given in the credentials, or one obtained
 * for a service account (core/net/google-token.ts signs, exchanges and caches it). The exchange
 * goes through the partner kit like any other call.
 */
import type { CheckContext } from "../../core/index.js";
import { type ServiceAccount, ServiceAccountKeyError, serviceAccountToken } from "../../core/internal.js";
import { callPartner, PartnerError, type PartnerService, requiredField } from "../partner-kit/index.js";

export type { ServiceAccount };

/** The bearer token for a call: the credentials' `accessToken`, or one for their service account. */
export async function googleAccessToken(
  context: CheckContext,
  service: PartnerService,
  timeout: number,
  now = Date.now(),
): Promise<string> {
  const given = context.credentials?.accessToken;
  if (typeof given === "string" && given !== "") return given;
  const account = context.credentials?.serviceAccount as ServiceAccount | undefined;
  if (!account) {
    throw new PartnerError(
      "partner_credentials_invalid",
      `${service.name} needs credentials.serviceAccount (a service account key) or credentials.accessToken`,
    );
  }
  try {
    return await serviceAccountToken(
      account,
      async (exchange) => {
        const answer = await callPartner(
          context,
          { id: service.id, name: `${service.name} (token exchange)` },
          { ...exchange, timeout },
        );
        return {
          accessToken: requiredField(service, answer.body, ["access_token"], "string"),
          expiresIn: requiredField(service, answer.body, ["expires_in"], "number"),
        };
      },
      now,
    );
  } catch (error) {
    if (error instanceof ServiceAccountKeyError) {
      throw new PartnerError("partner_credentials_invalid", `${service.name}: credentials.serviceAccount.${error.message}`);
    }
    throw error;
  }
}
