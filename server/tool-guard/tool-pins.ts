/**
 * Pinned tool definitions: each tool's name, description and input schema hashed in a form that
 * does not depend on key order or whitespace, so the same definition always gives the same pin and
 * any change to what the model reads about a tool (a "rug pull") gives another. A pinned tool whose
 * definition changes is withheld until an operator approves the new one.
 */
import { createHash } from "node:crypto";
import { PINNING_MODES } from "../store/schemas.js";

/** The part of an MCP tool that the pin covers: what the model reads about it. */
export interface PinnedDefinition {
  name: string;
  description: string;
  inputSchema: unknown;
}

/** A tool's pin as the store holds it, per server. */
export interface ToolPin {
  tool: string;
  /** Hash of the approved definition; null for a tool seen but never approved (pinning by approval). */
  hash: string | null;
  /** Hash of a definition seen since that differs from the approved one, awaiting approval; else null. */
  pending_hash: string | null;
}

/** How a server's tools are pinned: by the first listing, only by approval, or not at all. */
export type PinningMode = (typeof PINNING_MODES)[number];

/** JSON text with object keys sorted at every depth: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  const entries = Object.keys(value)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(",")}}`;
}

/** The pinned part of a tool as listed by a server. */
export function pinnedDefinition(tool: { name: string; description?: unknown; inputSchema?: unknown }): PinnedDefinition {
  return {
    name: tool.name,
    description: typeof tool.description === "string" ? tool.description : "",
    inputSchema: tool.inputSchema ?? {},
  };
}

/** The pin of a tool definition: `sha256:` and the hex digest of its canonical JSON. */
export function toolPinHash(tool: { name: string; description?: unknown; inputSchema?: unknown }): string {
  return `sha256:${createHash("sha256")
    .update(canonicalJson(pinnedDefinition(tool)))
    .digest("hex")}`;
}

/** What a listing means against the stored pins. */
export interface PinReview {
  /** Tools whose definition is the approved one (or pinning is off): shown. */
  shown: string[];
  /** Tools seen for the first time: to pin now (`first_use`) or to hold for approval (`approval`). */
  unseen: Array<{ tool: string; hash: string }>;
  /** Tools withheld: changed since approved, or never approved; `hash` is the definition seen now. */
  withheld: Array<{ tool: string; hash: string; reason: "changed" | "unapproved" }>;
}

/** Reviews a server's listing against its pins; pure, so the caller decides what to store. */
export function reviewPins(
  mode: PinningMode,
  listed: ReadonlyArray<{ name: string; description?: unknown; inputSchema?: unknown }>,
  pins: readonly ToolPin[],
): PinReview {
  const review: PinReview = { shown: [], unseen: [], withheld: [] };
  const byTool = new Map(pins.map((pin) => [pin.tool, pin]));
  for (const tool of listed) {
    if (mode === "off") {
      review.shown.push(tool.name);
      continue;
    }
    const hash = toolPinHash(tool);
    const pin = byTool.get(tool.name);
    if (!pin) {
      review.unseen.push({ tool: tool.name, hash });
      if (mode === "first_use") review.shown.push(tool.name);
      else review.withheld.push({ tool: tool.name, hash, reason: "unapproved" });
    } else if (pin.hash === hash) review.shown.push(tool.name);
    else review.withheld.push({ tool: tool.name, hash, reason: pin.hash === null ? "unapproved" : "changed" });
  }
  return review;
}
