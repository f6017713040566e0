/**
 * Who is asking, and what they may touch. The operator (the CLI, config-file seeding,
 * bootstrapping) may do anything; a key acts within its organization, and within its workspace
 * unless it is an organization admin. A record outside the caller's reach is reported as missing
 * (404), so a key of one workspace cannot learn what another holds.
 */
import { forbidden, notFound } from "../store/errors.js";
import type { Role, Workspace } from "../store/types.js";

/** The caller of a management action. */
export type Actor =
  { kind: "operator" } | { kind: "key"; key_id: string; organization_id: string; workspace_id: string | null; role: Role };

/** The operator: the CLI and the gateway's own start-up. */
export const OPERATOR: Actor = Object.freeze({ kind: "operator" });

const RANK: Readonly<Record<Role, number>> = { org_admin: 3, workspace_admin: 2, member: 1 };

/** Whether role `a` is at least role `b`. */
export function roleAtLeast(a: Role, b: Role): boolean {
  return RANK[a] >= RANK[b];
}

/** Throws 403 unless the caller has at least `role`. */
export function requireRole(actor: Actor, role: Role, action: string): void {
  if (actor.kind === "operator" || roleAtLeast(actor.role, role)) return;
  throw forbidden(`${action} needs the ${role} role; this key has the ${actor.role} role`, "role_forbidden");
}

/** Throws 403 unless the caller is the operator. */
export function requireOperator(actor: Actor, action: string): void {
  if (actor.kind !== "operator") {
    throw forbidden(`${action} is for the operator (the config file or the guardgate CLI), not for API keys`, "operator_only");
  }
}

/** Whether the caller may see records of an organization. */
export function seesOrganization(actor: Actor, organizationId: string): boolean {
  return actor.kind === "operator" || actor.organization_id === organizationId;
}

/** Whether the caller may see records of a workspace. */
export function seesWorkspace(actor: Actor, workspace: Pick<Workspace, "id" | "organization_id">): boolean {
  if (actor.kind === "operator") return true;
  if (actor.organization_id !== workspace.organization_id) return false;
  return actor.role === "org_admin" || actor.workspace_id === workspace.id;
}

/** Throws 404 unless the caller may see the workspace. */
export function assertSeesWorkspace(
  actor: Actor,
  workspace: Pick<Workspace, "id" | "organization_id"> | undefined,
  id: string,
): asserts workspace is Workspace {
  if (!workspace || !seesWorkspace(actor, workspace)) throw notFound(`workspace "${id}"`);
}
