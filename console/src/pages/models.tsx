/**
 * The members' model gallery (spec §2.6): every `@provider/model` the workspace may call, from
 * `GET /v1/models`, with copy-ready snippets for curl, the `openai` client and the
 * `@anthropic-ai/sdk` client against this gateway's base URL. The key is read from the
 * environment in every snippet, never written into it.
 */
import { useState } from "preact/hooks";
import { call } from "../api";
import { useSession } from "../session";
import { Await, CopyButton, PageHead, useLoad } from "../ui";

interface CatalogModel {
  id: string;
  provider: string;
  model: string;
  owned_by: string;
  usage: { curl: string; node: string };
}

type Client = "curl" | "openai" | "anthropic";

/** A snippet calling `reference` through the gateway at `base` with one client. */
export function snippet(client: Client, base: string, reference: string, curl: string): string {
  const header = `defaultHeaders: { "x-gateway-api-key": process.env.GUARDGATE_API_KEY }`;
  const messages = `[{ role: "user", content: "Hello" }]`;
  switch (client) {
    case "curl":
      return curl;
    case "openai":
      return [
        'import OpenAI from "openai";',
        "",
        `const client = new OpenAI({ baseURL: "${base}/v1", apiKey: "unused", ${header} });`,
        `const completion = await client.chat.completions.create({ model: "${reference}", messages: ${messages} });`,
        "console.log(completion.choices[0].message.content);",
      ].join("\n");
    case "anthropic":
      return [
        'import Anthropic from "@anthropic-ai/sdk";',
        "",
        `const client = new Anthropic({ baseURL: "${base}", apiKey: "unused", ${header} });`,
        `const message = await client.messages.create({ model: "${reference}", max_tokens: 256, messages: ${messages} });`,
        "console.log(message.content);",
      ].join("\n");
  }
}

function ModelCard({ model, base }: { model: CatalogModel; base: string }) {
  const [client, setClient] = useState<Client>("curl");
  const text = snippet(client, base, model.id, model.usage.curl);
  return (
    <article class="model" data-model={model.id}>
      <header>
        <h3>
          <code>{model.id}</code>
        </h3>
        <CopyButton text={model.id} label="Copy name" />
      </header>
      <p class="muted">
        {model.model} via {model.provider}
      </p>
      <div class="tabs" role="tablist">
        {(["curl", "openai", "anthropic"] as const).map((c) => (
          <button
            key={c}
            type="button"
            role="tab"
            aria-selected={c === client}
            class={c === client ? "tab current" : "tab"}
            onClick={() => setClient(c)}
          >
            {c === "anthropic" ? "@anthropic-ai/sdk" : c}
          </button>
        ))}
      </div>
      <pre class="snippet">{text}</pre>
      <CopyButton text={text} />
    </article>
  );
}

export function Models() {
  const { workspaceId, me } = useSession();
  const query = me.workspace_id ? undefined : { workspace_id: workspaceId ?? undefined };
  const loaded = useLoad(() => call<{ data: CatalogModel[] }>("GET", "/v1/models", query ? { query } : {}), [workspaceId]);
  const base = location.origin;
  return (
    <section>
      <PageHead title="Models" />
      <p>
        Base URL <code data-base-url>{base}</code> <CopyButton text={base} /> · send your key in <code>x-gateway-api-key</code>{" "}
        and name a model as <code>@provider/model</code>.
      </p>
      <Await loaded={loaded}>
        {(list) =>
          list.data.length === 0 ? (
            <p class="muted">This workspace has no models yet.</p>
          ) : (
            <div class="gallery">
              {list.data.map((m) => (
                <ModelCard key={m.id} model={m} base={base} />
              ))}
            </div>
          )
        }
      </Await>
    </section>
  );
}
