/** Pinned tool definitions in memory: for a gateway without a store (pins last as long as the process). */
import type { SeenToolDefinition, ToolPinSource, ToolPinState } from "../sources/types.js";

export class InMemoryToolPins implements ToolPinSource {
  readonly #pins = new Map<string, Map<string, ToolPinState>>();

  #server(workspaceId: string, server: string): Map<string, ToolPinState> {
    const key = `${workspaceId}\0${server}`;
    let pins = this.#pins.get(key);
    if (!pins) this.#pins.set(key, (pins = new Map()));
    return pins;
  }

  async list(workspaceId: string, server: string): Promise<ToolPinState[]> {
    return [...this.#server(workspaceId, server).values()].map((pin) => ({ ...pin }));
  }

  async pinNew(workspaceId: string, server: string, seen: SeenToolDefinition[], status: "pinned" | "unapproved"): Promise<void> {
    const pins = this.#server(workspaceId, server);
    for (const { tool, hash } of seen) {
      if (pins.has(tool)) continue;
      pins.set(
        tool,
        status === "pinned" ? { tool, status, hash, pending_hash: null } : { tool, status, hash: null, pending_hash: hash },
      );
    }
  }

  async flag(workspaceId: string, server: string, seen: SeenToolDefinition): Promise<void> {
    const pin = this.#server(workspaceId, server).get(seen.tool);
    if (pin && pin.hash !== seen.hash) {
      pin.pending_hash = seen.hash;
      pin.status = pin.hash === null ? "unapproved" : "changed";
    }
  }

  /** Approves what a tool awaits (the admin API's approval, for a gateway without a store). */
  approve(workspaceId: string, server: string, tool: string): boolean {
    const pin = this.#server(workspaceId, server).get(tool);
    if (!pin?.pending_hash) return false;
    Object.assign(pin, { hash: pin.pending_hash, pending_hash: null, status: "pinned" });
    return true;
  }
}
