/**
 * A `tools/list` result as the client may see it: tools outside the server's controls dropped,
 * tools first seen pinned (or held for approval), tools whose pinned definition changed withheld
 * and flagged, and each shown tool's description run through the input guardrails: a denied one
 * is withheld, a redacted one shown redacted.
 */
import type { McpServerRecord, SeenToolDefinition, ToolPinSource } from "../sources/types.js";
import { OPEN_CONTROLS, toolAllowed } from "./tool-controls.js";
import { pinnedDefinition, reviewPins, toolPinHash } from "./tool-pins.js";
import { toolDescriptionSlots, writeSlots } from "../formats/mcp-text.js";

type Tool = { name: string; description?: unknown; inputSchema?: unknown } & Record<string, unknown>;

/** What the listing needs besides the result. */
export interface ListingContext {
  server: McpServerRecord;
  pins: ToolPinSource;
  /** Runs a tool's description texts through the input guardrails. */
  checkDescription(texts: string[]): Promise<{ texts: string[]; denied: string | undefined }>;
}

function isTool(value: unknown): value is Tool {
  return typeof value === "object" && value !== null && typeof (value as { name?: unknown }).name === "string";
}

/** The listing the client sees; the same object when nothing changed. */
export async function reviewListing(result: Record<string, unknown>, context: ListingContext): Promise<Record<string, unknown>> {
  if (!Array.isArray(result.tools)) return result;
  const { server, pins } = context;
  const workspace = server.workspaceId ?? "";
  // A malformed entry carries no name a control or pin could hold: it is dropped.
  const allowed = result.tools.filter(isTool).filter((tool) => toolAllowed(server.tools ?? OPEN_CONTROLS, tool.name));
  const mode = server.pinning ?? "first_use";
  const review = reviewPins(mode, allowed, mode === "off" ? [] : await pins.list(workspace, server.name));
  const seen = (tool: Tool): SeenToolDefinition => ({
    tool: tool.name,
    hash: toolPinHash(tool),
    definition: pinnedDefinition(tool),
  });
  const byName = new Map(allowed.map((tool) => [tool.name, tool]));
  if (review.unseen.length) {
    await pins.pinNew(
      workspace,
      server.name,
      review.unseen.map((u) => seen(byName.get(u.tool)!)),
      mode === "first_use" ? "pinned" : "unapproved",
    );
  }
  for (const withheld of review.withheld) await pins.flag(workspace, server.name, seen(byName.get(withheld.tool)!));
  const shown: Tool[] = [];
  for (const name of review.shown) {
    const tool = byName.get(name)!;
    const slots = toolDescriptionSlots(tool);
    const verdict = await context.checkDescription(slots.map((slot) => slot.text));
    if (verdict.denied) continue;
    shown.push(writeSlots(tool, slots, verdict.texts));
  }
  const unchanged =
    shown.length === result.tools.length && shown.every((tool, index) => tool === (result.tools as unknown[])[index]);
  return unchanged ? result : { ...result, tools: shown };
}
