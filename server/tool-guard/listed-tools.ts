/**
 * The tool names each MCP server showed its clients in `tools/list`, so a metric may take a
 * tool's name as a label only when the server offers it: a name a client writes in a
 * `tools/call` could otherwise grow `/metrics` without limit.
 */

/** At most this many names are kept for one server; later ones are not taken as labels. */
export const MAX_LISTED_TOOLS = 256;

/** The names listed per server name, each server's set bounded. */
export class ListedTools {
  readonly #byServer = new Map<string, Set<string>>();

  /** Notes the names of a listing the client was shown. */
  add(server: string, names: Iterable<string>): void {
    let listed = this.#byServer.get(server);
    if (!listed) this.#byServer.set(server, (listed = new Set()));
    for (const name of names) {
      if (listed.size >= MAX_LISTED_TOOLS) return;
      listed.add(name);
    }
  }

  /** Whether the server has listed the tool. */
  has(server: string, tool: string): boolean {
    return this.#byServer.get(server)?.has(tool) ?? false;
  }
}
