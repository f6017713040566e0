/**
 * Who is signed in: the key's record from `GET /admin/v1/me`. Its role decides which pages the
 * console offers; the admin API decides what each call may do, so a hidden page is a courtesy,
 * not the guard.
 */
import { createContext } from "preact";
import { useContext } from "preact/hooks";

/** The roles of API keys, weakest first. */
export type Role = "member" | "workspace_admin" | "org_admin";

/** The signed-in key's record. */
export interface Me {
  id: string;
  name: string;
  role: Role;
  organization_id: string;
  workspace_id: string | null;
  hint: string;
}

/** The session: the key's record, the workspace being looked at and a way to change it. */
export interface Session {
  me: Me;
  workspaceId: string | null;
  setWorkspace(id: string): void;
  signOut(): void;
}

const RANK: Record<Role, number> = { member: 1, workspace_admin: 2, org_admin: 3 };

/** Whether the session's role is at least `role`. */
export function atLeast(me: Me, role: Role): boolean {
  return RANK[me.role] >= RANK[role];
}

export const SessionContext = createContext<Session | null>(null);

/** The session of a signed-in page. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside a signed-in page");
  return session;
}
