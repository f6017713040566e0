/**
 * `guardgate mcp add FILE | list | show NAME | delete NAME | tools NAME | approve NAME TOOL`: a
 * workspace's MCP servers in the store, as the operator (docs/mcp.md). `add` creates or updates
 * each server of a JSON or YAML file by name, checked against the admin API's body schema;
 * credentials are sealed and never printed (`show` says only which kind is held). `tools` lists the pinned tool definitions, the withheld ones flagged, and
 * `approve` makes the definition a tool awaits its pin. With `--url` (remote.ts), a running
 * gateway's, through its admin API.
 */
import { OPERATOR } from "../server/management/actor.js";
import type { McpServerInput, McpServerPatch } from "../server/management/mcp-servers.js";
import { mcpServerCreateSchema } from "../server/management/schemas.js";
import { compileValidator } from "../server/schema.js";
import type { McpServer, McpToolPin } from "../server/store/types.js";
import { type CommandArgs, DATA_DIR_FLAG, type Flag, ORGANIZATION_FLAG, parseCommand, printHelp } from "./args.js";
import type { Command } from "./command.js";
import { readRecordFile } from "./record-file.js";
import { type AdminClient, REMOTE_FLAGS, remoteOf } from "./remote.js";
import { openStoreAccess, organizationOf, runCommand, storeOptionsOf, UsageError, workspaceOf } from "./store-access.js";

const ARGS = {
  usage: [
    "mcp add FILE [--workspace ID] [--organization ID] [--data-dir DIR | --url URL --api-key KEY]",
    "mcp list [--workspace ID] [--data-dir DIR | --url URL --api-key KEY]",
    "mcp show NAME [--json] [--workspace ID] [--data-dir DIR | --url URL --api-key KEY]",
    "mcp delete NAME [--workspace ID] [--data-dir DIR | --url URL --api-key KEY]",
    "mcp tools NAME [--workspace ID] [--data-dir DIR | --url URL --api-key KEY]",
    "mcp approve NAME TOOL [--hash HASH] [--workspace ID] [--data-dir DIR | --url URL --api-key KEY]",
  ],
  entries: {
    "add FILE":
      'JSON or YAML: one server {name, url, transport?, credentials?, oauth?, tools?, pinning?,\ntool_pack?}, a list of them, or {"mcp_servers": [...]}; created, or updated when the\nworkspace has one of that name (docs/mcp.md)',
    list: "the workspace's MCP servers: name, URL, authentication (never the credentials), controls",
    "show NAME":
      "one server: its settings, which kind of credentials it holds (never a value) and its\npinned tools with their status",
    "delete NAME": "removes a server with its pinned tool definitions",
    "tools NAME": "the pinned tool definitions; `changed` and `unapproved` ones are withheld from clients",
    "approve NAME TOOL": "the definition the tool awaits becomes its pin; --hash makes it conditional",
  },
  flags: {
    workspace: { type: "string", value: "ID", help: "the workspace (default: the organization's first)" },
    json: { type: "boolean", default: false, help: "show: print {server, pinned_tools} as JSON" },
    hash: { type: "string", value: "HASH", help: "approve only if this is still the definition awaiting approval" },
    organization: ORGANIZATION_FLAG,
    "data-dir": DATA_DIR_FLAG,
    ...REMOTE_FLAGS,
  },
} as const satisfies CommandArgs<Record<string, Flag>>;

/** What the actions need, from the local store or from a gateway. */
interface McpBackend {
  list(): Promise<McpServer[]>;
  find(name: string): Promise<McpServer | undefined>;
  get(name: string): Promise<McpServer>;
  create(input: McpServerInput): Promise<unknown>;
  update(name: string, patch: McpServerPatch): Promise<unknown>;
  delete(name: string): Promise<unknown>;
  pins(name: string): Promise<McpToolPin[]>;
  approve(name: string, tool: string, hash: string | undefined): Promise<McpToolPin>;
  close(): Promise<void>;
}

async function remoteMcp(
  client: AdminClient,
  organization: string | undefined,
  workspace: string | undefined,
): Promise<McpBackend> {
  await client.checkOrganization(organization);
  if (!workspace) throw new UsageError("--workspace is needed with --url");
  const base = `/workspaces/${encodeURIComponent(workspace)}/mcp-servers`;
  const one = (name: string) => `${base}/${encodeURIComponent(name)}`;
  return {
    list: async () => (await client.call<{ data: McpServer[] }>("GET", base)).data,
    find: async (name) => {
      try {
        return await client.call<McpServer>("GET", one(name));
      } catch (error) {
        if ((error as { code?: string }).code === "not_found") return undefined;
        throw error;
      }
    },
    get: (name) => client.call<McpServer>("GET", one(name)),
    create: (input) => client.call("POST", base, input),
    update: (name, patch) => client.call("PATCH", one(name), patch),
    delete: (name) => client.call("DELETE", one(name)),
    pins: async (name) => (await client.call<{ data: McpToolPin[] }>("GET", `${one(name)}/tools`)).data,
    approve: (name, tool, hash) =>
      client.call<McpToolPin>("POST", `${one(name)}/tools/${encodeURIComponent(tool)}/approve`, hash ? { hash } : {}),
    close: async () => {},
  };
}

async function localMcp(values: {
  "data-dir"?: string | undefined;
  organization?: string | undefined;
  workspace?: string | undefined;
}) {
  // MCP servers are records with URLs and credentials: nothing of them is validated by a check.
  const access = await openStoreAccess({ ...storeOptionsOf(values), checks: false });
  try {
    const organization = await organizationOf(access, values.organization);
    const ws = (await workspaceOf(access, organization, values.workspace)).id;
    const service = access.management.mcpServers;
    return {
      list: () => service.list(OPERATOR, ws),
      find: (name: string) => access.management.context.store.mcpServers.findByName(ws, name),
      get: (name: string) => service.get(OPERATOR, ws, name),
      create: (input: McpServerInput) => service.create(OPERATOR, ws, input),
      update: (name: string, patch: McpServerPatch) => service.update(OPERATOR, ws, name, patch),
      delete: (name: string) => service.delete(OPERATOR, ws, name),
      pins: (name: string) => service.pins(OPERATOR, ws, name),
      approve: (name: string, tool: string, hash: string | undefined) => service.approve(OPERATOR, ws, name, tool, hash),
      close: () => access.close(),
    } satisfies McpBackend;
  } catch (error) {
    await access.close();
    throw error;
  }
}

const validateServer = compileValidator<McpServerInput>(mcpServerCreateSchema);

const NEEDS: Record<string, number> = { add: 1, list: 0, show: 1, delete: 1, tools: 1, approve: 2 };

/** A pinned tool as a line: name, status, pinned hash, and what a withheld one awaits. */
function pinLine(pin: McpToolPin): string {
  const flag = pin.status === "pinned" ? "" : `  WITHHELD (${pin.status}) awaiting ${pin.pending_hash}`;
  return `${pin.tool}  ${pin.status}  ${pin.hash ?? "-"}${flag}`;
}

/** Which credentials a server holds, by kind and header names: never a value. */
function heldCredentials(s: McpServer): string {
  if (!s.has_credentials) return "none";
  return s.header_names.length ? `${s.auth}, headers ${s.header_names.join(", ")}` : s.auth;
}

/** `show`'s text: one `field  value` line each, then the pinned tools. */
function showLines(s: McpServer, pins: McpToolPin[]): string[] {
  const oauth = s.oauth && [
    `token_url ${s.oauth.token_url}`,
    s.oauth.scope !== undefined && `scope ${s.oauth.scope}`,
    s.oauth.audience !== undefined && `audience ${s.oauth.audience}`,
    `client auth ${s.oauth.token_endpoint_auth_method ?? "client_secret_basic"}`,
  ];
  return [
    `name         ${s.name}`,
    `url          ${s.url}`,
    `transport    ${s.transport}`,
    `answers      ${s.answers ?? "default"}`,
    `credentials  ${heldCredentials(s)}`,
    ...(oauth ? [`oauth        ${oauth.filter(Boolean).join("  ")}`] : []),
    `trusted      ${s.trusted ? "yes" : "no (workspace address policy)"}`,
    `tools        ${s.tools.allow === "all" ? "all" : `allow ${s.tools.allow.join(",")}`}${s.tools.deny.length ? ` deny ${s.tools.deny.join(",")}` : ""}`,
    `pinning      ${s.pinning}`,
    `tool pack    ${s.tool_pack ?? "none"}`,
    `pinned tools ${pins.length ? "" : "none"}`.trimEnd(),
    ...pins.map((pin) => `  ${pinLine(pin)}`),
  ];
}

const mcp: Command = (argv) =>
  runCommand("mcp", async () => {
    const { values, positionals, help } = parseCommand(ARGS, argv);
    const [action, first, second] = positionals;
    if (help || !action) return printHelp(ARGS, help);
    const needs = NEEDS[action];
    if (needs === undefined) throw new UsageError(`unknown action "${action}"; use add, list, show, delete, tools or approve`);
    if ([first, second].slice(0, needs).some((p) => !p)) {
      throw new UsageError(
        action === "approve"
          ? "approve needs a server NAME and a TOOL"
          : `${action} needs ${action === "add" ? "a FILE" : "a server NAME"}`,
      );
    }
    const servers =
      action === "add"
        ? await readRecordFile<McpServerInput>(first as string, { one: "mcp_server", many: "mcp_servers", key: "name" })
        : [];
    servers.forEach((input, index) => validateServer(input, `${first}: server ${index}`));
    const remote = remoteOf(values);
    const service = remote ? await remoteMcp(remote, values.organization, values.workspace) : await localMcp(values);
    try {
      const out = (line: string) => process.stdout.write(`${line}\n`);
      if (action === "list") {
        for (const s of await service.list()) {
          const tools = s.tools.allow === "all" ? "all tools" : `allow ${s.tools.allow.join(",")}`;
          const deny = s.tools.deny.length ? ` deny ${s.tools.deny.join(",")}` : "";
          out(`${s.name}  ${s.url}  ${s.auth}  ${tools}${deny}  pinning ${s.pinning}  pack ${s.tool_pack ?? "none"}`);
        }
      } else if (action === "show") {
        const server = await service.get(first as string);
        const pins = await service.pins(first as string);
        if (values.json) out(JSON.stringify({ server, pinned_tools: pins }, null, 2));
        else showLines(server, pins).forEach((line) => out(line));
      } else if (action === "delete") {
        await service.delete(first as string);
        out(`deleted MCP server ${first}`);
      } else if (action === "tools") {
        for (const pin of await service.pins(first as string)) out(pinLine(pin));
      } else if (action === "approve") {
        const pin = await service.approve(first as string, second as string, values.hash);
        out(`approved ${pin.tool} of ${first}: pinned ${pin.hash}`);
      } else {
        for (const input of servers) {
          if (await service.find(input.name)) {
            const { name, ...patch } = input;
            await service.update(name, patch);
            out(`updated MCP server ${name}`);
          } else {
            await service.create(input);
            out(`created MCP server ${input.name}`);
          }
        }
      }
      return 0;
    } finally {
      await service.close();
    }
  });

export default mcp;
