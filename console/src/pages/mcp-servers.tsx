/**
 * The workspace's MCP servers (docs/mcp.md): the list with each server's transport, URL, which
 * credentials it holds (never the credentials), tool controls and pinning; create, edit and
 * delete; and one server's pinned tool definitions, where a tool withheld because its definition
 * changed (or awaits a first approval) shows the definition it is withheld for beside the pinned
 * one, and "Approve" makes the reviewed one its pin.
 */
import { useState } from "preact/hooks";
import { admin, call, type List } from "../api";
import { go, href } from "../router";
import { useSession } from "../session";
import { Await, DeleteButton, ErrorBox, Json, ListTable, PageHead, useLoad, when } from "../ui";
import type { McpServerRecord } from "./mcp-server-body";
import { heldCredentials, McpServerForm } from "./mcp-server-form";

/** A pinned tool definition as the admin API answers it. */
interface ToolPin {
  tool: string;
  status: "pinned" | "changed" | "unapproved";
  hash: string | null;
  definition: Record<string, unknown> | null;
  pending_hash: string | null;
  pending_definition: Record<string, unknown> | null;
  flagged_at: string | null;
}

const STATUS_TEXT: Record<ToolPin["status"], string> = {
  pinned: "pinned",
  changed: "changed: withheld",
  unapproved: "unapproved: withheld",
};

function short(hash: string | null): string {
  return hash ? `${hash.slice(0, 19)}…` : "–";
}

function controls(record: McpServerRecord): string {
  const allow = record.tools.allow === "all" ? "every tool" : `allow ${record.tools.allow.join(", ") || "none"}`;
  return record.tools.deny.length ? `${allow}; deny ${record.tools.deny.join(", ")}` : allow;
}

/** One server's pinned tool definitions, the withheld ones first, each with its approval. */
function PinnedTools({ base, server }: { base: string; server: string }) {
  const path = `${base}/${encodeURIComponent(server)}/tools`;
  const loaded = useLoad(() => admin<List<ToolPin>>(path), [path]);
  const [error, setError] = useState<unknown>();
  const approve = async (pin: ToolPin) => {
    setError(undefined);
    try {
      await call("POST", `/admin/v1${path}/${encodeURIComponent(pin.tool)}/approve`, { body: { hash: pin.pending_hash } });
    } catch (failure) {
      setError(failure);
    }
    loaded.reload();
  };
  return (
    <section class="panel mcp-tools" data-tools-of={server}>
      <h2>Tools of {server}</h2>
      <p class="muted">
        Each tool's name, description and input schema are pinned by hash. A tool whose definition changed, or that awaits a first
        approval, is withheld from clients until approved here; review what it would say first.
      </p>
      <ErrorBox error={error} />
      <Await loaded={loaded}>
        {(list) => (
          <ListTable
            items={[...list.data].sort((a, b) => Number(a.status === "pinned") - Number(b.status === "pinned"))}
            empty="No tool pinned yet: tools are pinned when a client first lists them."
            heads={["tool", "status", "pinned", "flagged", ""]}
            row={(pin) => (
              <tr key={pin.tool} data-tool={pin.tool} data-status={pin.status}>
                <td>{pin.tool}</td>
                <td>
                  <span class={`badge ${pin.status === "pinned" ? "ok" : "deny"}`}>{STATUS_TEXT[pin.status]}</span>
                </td>
                <td>
                  <code title={pin.hash ?? undefined}>{short(pin.hash)}</code>
                </td>
                <td>{pin.flagged_at ? when(pin.flagged_at) : "–"}</td>
                <td class="row-actions">
                  {pin.pending_hash && (
                    <details class="pending">
                      <summary>Review</summary>
                      <h4>Pinned definition</h4>
                      {pin.definition ? <Json value={pin.definition} /> : <p class="muted">None: never approved.</p>}
                      <h4>Withheld for ({short(pin.pending_hash)})</h4>
                      <Json value={pin.pending_definition} />
                    </details>
                  )}
                  {pin.pending_hash && (
                    <button type="button" class="small" data-approve={pin.tool} onClick={() => void approve(pin)}>
                      Approve
                    </button>
                  )}
                </td>
              </tr>
            )}
          />
        )}
      </Await>
    </section>
  );
}

/** The MCP servers page; `name` opens that server's pinned tools. */
export function McpServers({ name }: { name?: string | undefined }) {
  const { workspaceId } = useSession();
  const base = `/workspaces/${encodeURIComponent(workspaceId ?? "")}/mcp-servers`;
  const loaded = useLoad(() => admin<List<McpServerRecord>>(base), [base]);
  const [mode, setMode] = useState<{ kind: "create" } | { kind: "edit"; record: McpServerRecord } | null>(null);
  const [error, setError] = useState<unknown>();
  const done = () => {
    setMode(null);
    loaded.reload();
  };
  return (
    <section data-page="mcp-servers">
      <PageHead title="MCP servers">
        <button type="button" onClick={() => setMode({ kind: "create" })}>
          New
        </button>
      </PageHead>
      <p class="muted">
        Servers the workspace's keys reach at <code>/v1/mcp/{"{name}"}</code>. Their credentials are sealed and never shown, only
        which kind is held.
      </p>
      <ErrorBox error={error} />
      {mode && (
        <McpServerForm
          key={mode.kind === "edit" ? mode.record.name : ""}
          workspaceId={workspaceId ?? ""}
          {...(mode.kind === "edit" && { record: mode.record })}
          onDone={done}
        />
      )}
      <Await loaded={loaded}>
        {(list) => (
          <ListTable
            items={list.data}
            empty="No MCP server registered in this workspace."
            heads={["name", "transport", "URL", "credentials", "tools", "pinning", "tool pack", ""]}
            row={(record) => (
              <tr key={record.name} data-server={record.name} class={record.name === name ? "current" : ""}>
                <td>
                  <a href={href(["mcp-servers", record.name])}>{record.name}</a>
                </td>
                <td>{record.transport}</td>
                <td>
                  <code>{record.url}</code>
                </td>
                <td data-field="credentials">{heldCredentials(record)}</td>
                <td data-field="tools">{controls(record)}</td>
                <td>{record.pinning.replace("_", " ")}</td>
                <td>{record.tool_pack ?? "–"}</td>
                <td class="row-actions">
                  <a class="button small secondary" href={href(["mcp-servers", record.name])}>
                    Tools
                  </a>
                  <button type="button" class="small secondary" onClick={() => setMode({ kind: "edit", record })}>
                    Edit
                  </button>
                  <DeleteButton
                    what={record.name}
                    path={`${base}/${encodeURIComponent(record.name)}`}
                    onDeleted={() => {
                      if (record.name === name) go(["mcp-servers"]);
                      loaded.reload();
                    }}
                    onError={setError}
                  />
                </td>
              </tr>
            )}
          />
        )}
      </Await>
      {name && <PinnedTools key={name} base={base} server={name} />}
    </section>
  );
}
