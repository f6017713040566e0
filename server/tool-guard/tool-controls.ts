/**
 * Which tools of an MCP server a workspace may see and call: an allow-list (`"all"` or names) and a
 * deny-list, names written exactly or with `*` for any run of characters. The deny-list wins. Tool
 * names are matched case-sensitively, as MCP names them.
 */
import { toolNameMatches } from "../policies/scope.js";

/** A server's tool controls. */
export interface ToolControls {
  /** `"all"`, or the tools allowed (names or `*` patterns). */
  allow: "all" | readonly string[];
  /** Tools refused even when allowed. */
  deny: readonly string[];
}

/** Every tool allowed, none denied. */
export const OPEN_CONTROLS: ToolControls = Object.freeze({ allow: "all", deny: Object.freeze([]) as readonly string[] });

/** Whether a name matches a pattern where only `*` is special (the rule of policy scopes). */
export const toolMatches = toolNameMatches;

/** Whether the controls let a tool be listed and called. */
export function toolAllowed(controls: ToolControls, name: string): boolean {
  if (controls.deny.some((pattern) => toolMatches(pattern, name))) return false;
  return controls.allow === "all" || controls.allow.some((pattern) => toolMatches(pattern, name));
}
