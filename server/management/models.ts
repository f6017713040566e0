/**
 * The model catalog of a workspace (spec §2.6): every `@provider/model` its providers allow, with a
 * usage snippet each — the members' gallery. An allow-list of "all" lists the models the price
 * table and the integration's pricing name; any other model of the provider still resolves.
 */
import { endpointAt } from "../formats/endpoints.js";
import { pricedModels } from "../limits/prices.js";
import { translationOf } from "../providers/send.js";
import { kindOf } from "../providers/catalog.js";
import type { Integration, Provider } from "../store/types.js";
import type { ManagementContext } from "./context.js";
import { intersectModels } from "./limit-rules.js";

/** One model of the catalog, in the OpenAI list shape plus guardgate's fields. */
export interface CatalogModel {
  id: string;
  object: "model";
  created: number;
  owned_by: string;
  provider: string;
  model: string;
  /** How a `/v1/responses` request reaches the model: passed through, translated through chat, or not at all. */
  responses: ResponsesReach;
  usage: { curl: string; node: string };
}

/** How a Responses request reaches a provider kind. */
export type ResponsesReach = "passthrough" | "translated" | "unsupported";

const RESPONSES = endpointAt("/v1/responses");

/** Whether a Responses request passes through to a provider of `kind`, is translated through its chat form, or cannot reach it. */
export function responsesReach(kind: string): ResponsesReach {
  const route = translationOf(kindOf(kind), RESPONSES);
  if (route === "none") return "passthrough";
  return route === "chat" ? "translated" : "unsupported";
}

/** The models a provider over an integration allows, by name. */
export function providerModels(ctx: ManagementContext, provider: Provider, integration: Integration): string[] {
  const allowed = intersectModels(integration.allowed_models, provider.allowed_models);
  if (allowed !== "all") return [...allowed];
  const named = new Set([...pricedModels(ctx.prices, integration.provider), ...Object.keys(integration.pricing)]);
  named.delete("*");
  return [...named].sort();
}

function endpointFor(kind: string, model: string): "chat" | "messages" | "embeddings" {
  if (/embed/i.test(model)) return "embeddings";
  return kind === "anthropic" ? "messages" : "chat";
}

/** A runnable example for one model; the key is read from the environment, never printed. */
export function usageSnippet(baseUrl: string, kind: string, reference: string): { curl: string; node: string } {
  const endpoint = endpointFor(kind, reference);
  const body =
    endpoint === "embeddings"
      ? { model: reference, input: "Hello" }
      : endpoint === "messages"
        ? { model: reference, max_tokens: 256, messages: [{ role: "user", content: "Hello" }] }
        : { model: reference, messages: [{ role: "user", content: "Hello" }] };
  const path = endpoint === "chat" ? "/v1/chat/completions" : `/v1/${endpoint}`;
  const curl = [
    `curl ${baseUrl}${path} \\`,
    `  -H "content-type: application/json" \\`,
    `  -H "x-gateway-api-key: $GUARDGATE_API_KEY" \\`,
    `  -d '${JSON.stringify(body)}'`,
  ].join("\n");
  const node =
    endpoint === "messages"
      ? [
          'import Anthropic from "@anthropic-ai/sdk";',
          `const client = new Anthropic({ baseURL: "${baseUrl}", apiKey: "unused", defaultHeaders: { "x-gateway-api-key": process.env.GUARDGATE_API_KEY } });`,
          `const message = await client.messages.create(${JSON.stringify(body)});`,
        ].join("\n")
      : [
          'import OpenAI from "openai";',
          `const client = new OpenAI({ baseURL: "${baseUrl}/v1", apiKey: "unused", defaultHeaders: { "x-gateway-api-key": process.env.GUARDGATE_API_KEY } });`,
          endpoint === "embeddings"
            ? `const embedding = await client.embeddings.create(${JSON.stringify(body)});`
            : `const completion = await client.chat.completions.create(${JSON.stringify(body)});`,
        ].join("\n");
  return { curl, node };
}

/** Every model a workspace may use, sorted by reference. */
export async function workspaceModels(ctx: ManagementContext, workspaceId: string, baseUrl: string): Promise<CatalogModel[]> {
  const models: CatalogModel[] = [];
  for (const provider of await ctx.store.providers.list({ workspaceId })) {
    const integration = await ctx.store.integrations.get(provider.integration_id);
    if (!integration) continue;
    if (!(await ctx.store.provisioning.get(integration.id, workspaceId))) continue;
    for (const model of providerModels(ctx, provider, integration)) {
      const id = `@${provider.slug}/${model}`;
      models.push({
        id,
        object: "model",
        created: Math.floor(Date.parse(provider.created_at) / 1000),
        owned_by: integration.provider,
        provider: provider.slug,
        model,
        responses: responsesReach(integration.provider),
        usage: usageSnippet(baseUrl, integration.provider, id),
      });
    }
  }
  return models.sort((a, b) => a.id.localeCompare(b.id));
}
