import { describe, expect, it } from "vitest";
import { secretOptionValues } from "./options.js";

describe("the secrets among a provider's options", () => {
  const account = {
    type: "service_account",
    client_email: "gateway@acme.iam.gserviceaccount.com",
    private_key: "-----BEGIN PRIVATE KEY-----\nMIIEv…\n-----END PRIVATE KEY-----\n",
  };

  it("are each long string of a service account given as an object", () => {
    const values = secretOptionValues("vertex-ai", { vertex_service_account_json: account, vertex_region: "europe-west4" });
    expect(values).toContain(account.private_key);
    expect(values).not.toContain("europe-west4");
  });

  it("are the text and each long string inside it, for a service account given as JSON text", () => {
    const text = JSON.stringify(account);
    const values = secretOptionValues("vertex-ai", { vertex_service_account_json: text });
    expect(values).toEqual(expect.arrayContaining([text, account.private_key, account.client_email]));
  });
});
