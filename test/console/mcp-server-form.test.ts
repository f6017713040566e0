/**
 * The MCP server form's edit body: only what changed is sent, compared as values. A store may
 * hand back an OAuth setting or tool controls with their keys in another order than the form
 * builds them; that is no change, and sending it again would mark an operator's trusted server
 * as a workspace admin's (untrusted).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bodyOf, type McpServerRecord, sameValue, stateOf } from "../../console/src/pages/mcp-server-body.js";
import { PROPERTY_RUNS } from "../support/fragments.js";

/** The same keys and values in the order `order` gives. */
function reordered<T extends object>(value: T, order: number[]): T {
  const entries = Object.entries(value);
  const keyed = entries.map((entry, i) => ({ entry, rank: order[i % order.length]! * entries.length + i }));
  return Object.fromEntries(keyed.sort((a, b) => a.rank - b.rank).map((k) => k.entry)) as T;
}

const record: McpServerRecord = {
  id: "mcp_1",
  name: "crm",
  transport: "streamable_http",
  url: "https://crm.example.com/mcp",
  answers: null,
  auth: "oauth_client_credentials",
  oauth: {
    token_endpoint_auth_method: "client_secret_post",
    audience: "https://mcp.example",
    scope: "tools",
    token_url: "https://auth.example.com/token",
  },
  header_names: [],
  has_credentials: true,
  trusted: true,
  tools: { deny: ["delete_*"], allow: ["read_*"] },
  pinning: "first_use",
  tool_pack: null,
};

describe("the MCP server form's edit body", () => {
  it("sends nothing for an unchanged OAuth setting and tool controls whose keys the store keeps in another order", () => {
    expect(bodyOf(stateOf(record), record)).toEqual({});
    // Without the method, the setting is HTTP Basic: still unchanged.
    const basic = { ...record, oauth: { scope: "tools", token_url: "https://auth.example.com/token" } };
    expect(bodyOf(stateOf(basic), basic)).toEqual({});
  });

  it("sends the OAuth setting when a field of it changed", () => {
    const state = { ...stateOf(record), scope: "tools admin" };
    expect(bodyOf(state, record)).toEqual({
      oauth: {
        token_url: "https://auth.example.com/token",
        scope: "tools admin",
        audience: "https://mcp.example",
        token_endpoint_auth_method: "client_secret_post",
      },
    });
    const method = { ...stateOf(record), token_endpoint_auth_method: "client_secret_basic" as const };
    expect(bodyOf(method, record)).toMatchObject({ oauth: { token_endpoint_auth_method: "client_secret_basic" } });
  });

  it("sends nothing for any unchanged record, whatever its keys' order (property)", () => {
    const text = fc.string({ minLength: 1, maxLength: 12 }).filter((t) => t.trim() === t);
    const oauth = fc.record(
      {
        token_url: text.map((t) => `https://auth.example.com/${t}`),
        scope: text,
        audience: text,
        token_endpoint_auth_method: fc.constantFrom("client_secret_basic" as const, "client_secret_post" as const),
      },
      { requiredKeys: ["token_url"] },
    );
    const names = fc.uniqueArray(
      text.filter((t) => !/[,\n]/.test(t)),
      { maxLength: 3 },
    );
    fc.assert(
      fc.property(oauth, names, names, fc.array(fc.nat(5), { minLength: 1, maxLength: 5 }), (o, allow, deny, order) => {
        const stored = {
          ...record,
          oauth: reordered(o, order),
          tools: reordered({ allow: allow.length ? allow : ("all" as const), deny }, order),
        };
        expect(bodyOf(stateOf(stored), stored)).toEqual({});
      }),
      PROPERTY_RUNS,
    );
  });

  it("compares JSON values structurally", () => {
    expect(sameValue({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
    expect(sameValue({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameValue([1, 2], [2, 1])).toBe(false);
    expect(sameValue({ a: [] }, { a: {} })).toBe(false);
    expect(sameValue(null, {})).toBe(false);
  });
});
