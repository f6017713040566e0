/**
 * Azure OpenAI from the management plane: an integration of kind `azure-openai` with its options
 * (checked when saved), provisioned to a workspace, answers through the Azure contract fake; the
 * request log over a real SQLite store keeps the content filter's verdicts, and the admin log view
 * returns them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { chat, type ManagedTestGateway, startManaged } from "../support/managed.js";
import { AzureFake } from "../support/providers/azure.js";

let gw: ManagedTestGateway;
let azure: AzureFake;

beforeAll(async () => {
  azure = await new AzureFake().start();
  gw = await startManaged();
});
afterAll(async () => {
  await gw.close();
  await azure.close();
});
beforeEach(() => azure.reset());

async function logView(id: unknown) {
  const url = `/admin/v1/logs/${String(id)}`;
  let view = await gw.call("GET", url, { key: gw.keys.admin_key });
  for (const deadline = Date.now() + 5000; view.status === 404 && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    await gw.managed.sink.flush();
    view = await gw.call("GET", url, { key: gw.keys.admin_key });
  }
  return view;
}

describe("an Azure integration", () => {
  it("refuses options that do not suit the kind, naming the field", async () => {
    const refused = await gw.call("POST", "/admin/v1/integrations", {
      key: gw.keys.admin_key,
      body: { slug: "azure-bad", provider: "azure-openai", credentials: { api_key: "k", options: { api_version: "newest" } } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("credentials.options");
    expect(refused.body.error.message).toContain("api_version");
  });

  it("answers through its deployment, and the admin log view shows the content filter's verdicts", async () => {
    const created = await gw.call("POST", "/admin/v1/integrations", {
      key: gw.keys.admin_key,
      body: {
        slug: "azure-store",
        provider: "azure-openai",
        base_url: azure.baseUrl,
        credentials: { api_key: azure.apiKey, options: { deployment_id: "gpt-4o-prod", api_version: "2024-10-21" } },
      },
    });
    expect(created.status).toBe(201);
    expect(created.text).not.toContain(azure.apiKey);
    const provisioned = await gw.call("PUT", `/admin/v1/integrations/${created.body.id}/workspaces/${gw.keys.workspace_id}`, {
      key: gw.keys.admin_key,
      body: {},
    });
    expect(provisioned.status).toBe(200);

    azure.enqueue({ kind: "filtered-output" });
    const answer = await gw.call("POST", "/v1/chat/completions", { key: gw.keys.api_key, body: chat("@azure-store/gpt-4o") });
    expect(answer.status).toBe(200);
    expect(answer.body.choices[0].finish_reason).toBe("content_filter");
    expect(azure.inference[0]).toMatchObject({ deployment: "gpt-4o-prod", apiVersion: "2024-10-21" });
    expect(azure.inference[0]?.headers["api-key"]).toBe(azure.apiKey);

    const view = await logView(answer.headers["x-gateway-request-id"]);
    expect(view.status).toBe(200);
    expect(view.body.provider_filters).toEqual({
      source: "azure_content_filter",
      filtered: true,
      prompt: {
        hate: { filtered: false, severity: "safe" },
        self_harm: { filtered: false, severity: "safe" },
        sexual: { filtered: false, severity: "safe" },
        violence: { filtered: false, severity: "safe" },
        jailbreak: { filtered: false, detected: false },
      },
      completion: {
        hate: { filtered: false, severity: "safe" },
        self_harm: { filtered: false, severity: "safe" },
        sexual: { filtered: false, severity: "safe" },
        violence: { filtered: true, severity: "medium" },
      },
    });
    expect(view.text).not.toContain(azure.apiKey);
  });
});
