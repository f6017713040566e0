/**
 * Records the config file seeds are the file's: the next reload (or start) writes the file's
 * version again, so an edit through the admin API or the console would be lost without a word.
 * The admin API marks them (`managed_by: "file"`, `managed_file`) and refuses to change or delete
 * them with 409 `file_managed`, naming the file, unless `settings.file_records_editable` is set.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ManagementError } from "../store/errors.js";

/** Kinds of record the file seeds that the admin API can change. */
export type FileRecordKind = "guardrail" | "config" | "policy" | "integration" | "plugin_integration";

/** Which records the config file manages, and whether they may be edited anyway. */
export interface FileManagedRecords {
  /** The file's path when it manages the record of `kind` at `key` (`workspace\0id` for guardrails and configs, else the id). */
  fileOf(kind: FileRecordKind, key: string): string | undefined;
  /** Whether the operator lets the admin API change them anyway (`settings.file_records_editable`). */
  readonly editable: boolean;
}

/** The fields a file-managed record carries in the admin API's answers. */
export const FILE_MANAGED_FIELDS = {
  managed_by: {
    type: "string",
    enum: ["file"],
    description: "Present when the gateway's config file seeds this record: change it there, then reload.",
  },
  managed_file: { type: "string", description: "The config file that seeds this record." },
} as const;

/** Adds the file-managed fields, optional, to a record's answer schema. */
export function withFileManaged<S extends { properties: object }>(schema: S): S {
  return { ...schema, properties: { ...schema.properties, ...FILE_MANAGED_FIELDS } };
}

/** A route's kind: its record kind and how to find a record's key in its path or in a record. */
interface RouteKind {
  kind: FileRecordKind;
  /** The route of one record (its path parameters name it), or of a list. */
  one: boolean;
  label: string;
}

const ROUTES: Array<[RegExp, FileRecordKind, string]> = [
  [/\/workspaces\/:workspace_id\/guardrails(\/:id)?$/, "guardrail", "guardrail"],
  [/\/workspaces\/:workspace_id\/configs(\/:id)?$/, "config", "config"],
  [/\/policies(\/:policy_id)?$/, "policy", "policy"],
  [/\/integrations(\/:integration_id)?$/, "integration", "integration"],
  [/\/plugin-integrations(\/:plugin_integration_id)?$/, "plugin_integration", "plugin integration"],
];

function routeKind(request: FastifyRequest): RouteKind | undefined {
  const url = request.routeOptions.url ?? "";
  for (const [pattern, kind, label] of ROUTES) {
    const match = pattern.exec(url);
    if (match) return { kind, one: match[1] !== undefined, label };
  }
  return undefined;
}

/** A record's key, from the record itself. */
function recordKey(kind: FileRecordKind, record: { id?: unknown; workspace_id?: unknown }): string | undefined {
  if (typeof record.id !== "string") return undefined;
  if (kind === "guardrail" || kind === "config")
    return typeof record.workspace_id === "string" ? `${record.workspace_id}\0${record.id}` : undefined;
  return record.id;
}

/** A record's key, from the path parameters of its route. */
function paramsKey(kind: FileRecordKind, params: Record<string, string>): string | undefined {
  switch (kind) {
    case "guardrail":
    case "config":
      return params.workspace_id !== undefined && params.id !== undefined ? `${params.workspace_id}\0${params.id}` : undefined;
    case "policy":
      return params.policy_id;
    case "integration":
      return params.integration_id;
    case "plugin_integration":
      return params.plugin_integration_id;
  }
}

/** The record with its marks when the file manages it; a copy, since the record may be a cache's. */
function marked(records: FileManagedRecords, kind: FileRecordKind, record: unknown): unknown {
  if (!record || typeof record !== "object") return record;
  const key = recordKey(kind, record as { id?: unknown; workspace_id?: unknown });
  const file = key === undefined ? undefined : records.fileOf(kind, key);
  return file === undefined ? record : { ...record, managed_by: "file", managed_file: file };
}

/** Registers, on the admin scope, the refusal of edits to file-managed records and their marks in answers. */
export function fileManagedRecords(admin: FastifyInstance, records: FileManagedRecords): void {
  admin.addHook("preHandler", async (request) => {
    if (records.editable || !["PUT", "PATCH", "DELETE"].includes(request.method)) return;
    const route = routeKind(request);
    if (!route?.one) return;
    const key = paramsKey(route.kind, request.params as Record<string, string>);
    const file = key === undefined ? undefined : records.fileOf(route.kind, key);
    if (file === undefined) return;
    const name = key!.split("\0").pop();
    throw new ManagementError(
      "file_managed",
      `${route.label} "${name}" is managed by the config file ${file}: change it there and reload (guardgate reload), or set settings.file_records_editable: true to edit it here (the next reload then writes the file's version back)`,
    );
  });
  admin.addHook("preSerialization", async (request, reply, payload: unknown) => {
    if (reply.statusCode >= 300 || !payload || typeof payload !== "object") return payload;
    const route = routeKind(request);
    if (!route) return payload;
    const list = (payload as { data?: unknown }).data;
    if (Array.isArray(list)) return { ...payload, data: list.map((record) => marked(records, route.kind, record)) };
    return marked(records, route.kind, payload);
  });
}
