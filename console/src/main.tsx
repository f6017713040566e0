/**
 * The console's shell: sign-in with an API key, the signed-in key's pages (by role, as the admin
 * API allows them), the workspace being looked at, and the page the route names.
 */
import { render } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { ApiError, admin, call, forgetKey, type List, storedKey, storeKey } from "./api";
import { Analytics } from "./pages/analytics";
import { Configs } from "./pages/configs";
import { Datasets } from "./pages/datasets";
import { Evals } from "./pages/evals";
import { Guardrails } from "./pages/guardrails";
import { LogDetail } from "./pages/log-detail";
import { Logs } from "./pages/logs";
import { McpServers } from "./pages/mcp-servers";
import { Models } from "./pages/models";
import { Policies } from "./pages/policies";
import { RESOURCES, ResourcePage } from "./pages/resources";
import { href, useRoute } from "./router";
import { atLeast, type Me, type Role, type Session, SessionContext } from "./session";
import { ThemeToggle } from "./theme";
import { messageOf } from "./ui";

interface Workspace {
  id: string;
  name: string;
}

/** A page of the console and the least role that may open it. */
interface PageEntry {
  path: string;
  title: string;
  role: Role;
  /** The page works on one workspace. */
  workspace?: boolean;
}

const PAGES: PageEntry[] = [
  { path: "logs", title: "Logs", role: "workspace_admin" },
  { path: "analytics", title: "Analytics", role: "workspace_admin" },
  { path: "guardrails", title: "Guardrails", role: "workspace_admin", workspace: true },
  { path: "configs", title: "Configs", role: "workspace_admin", workspace: true },
  { path: "policies", title: "Policies", role: "workspace_admin", workspace: true },
  { path: "mcp-servers", title: "MCP servers", role: "workspace_admin", workspace: true },
  { path: "datasets", title: "Datasets", role: "workspace_admin", workspace: true },
  { path: "evals", title: "Evaluations", role: "workspace_admin" },
  ...RESOURCES.map((r) => ({ path: r.path, title: r.title, role: r.role, ...(r.workspace && { workspace: true }) })),
  { path: "models", title: "Models", role: "member", workspace: true },
];

function SignIn({ onSignedIn, problem }: { onSignedIn(me: Me): void; problem?: string | undefined }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<string | undefined>(problem);
  const [busy, setBusy] = useState(false);
  return (
    <main class="signin">
      <h1>guardgate console</h1>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          try {
            const me = await call<Me>("GET", "/admin/v1/me", { key: key.trim() });
            storeKey(key.trim());
            onSignedIn(me);
          } catch (failure) {
            setError(failure instanceof ApiError && failure.status === 401 ? "That key is not valid." : messageOf(failure));
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="key">API key</label>
        <input
          id="key"
          name="key"
          type="password"
          autocomplete="off"
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
        />
        <p class="hint">Kept in this tab's session storage only; closing the tab signs you out.</p>
        <button type="submit" disabled={busy || !key.trim()}>
          Sign in
        </button>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}

function Page({ entry, parts }: { entry: PageEntry; parts: string[] }) {
  switch (entry.path) {
    case "logs":
      return parts[1] ? <LogDetail id={parts[1]} /> : <Logs />;
    case "analytics":
      return <Analytics />;
    case "guardrails":
      return <Guardrails id={parts[1]} />;
    case "configs":
      return <Configs id={parts[1]} />;
    case "policies":
      return <Policies id={parts[1]} />;
    case "mcp-servers":
      return <McpServers name={parts[1]} />;
    case "datasets":
      return <Datasets id={parts[1]} />;
    case "evals":
      return <Evals id={parts[1]} />;
    case "models":
      return <Models />;
    default: {
      const resource = RESOURCES.find((r) => r.path === entry.path);
      return resource ? <ResourcePage resource={resource} /> : null;
    }
  }
}

function Shell({ me, signOut }: { me: Me; signOut(): void }) {
  const route = useRoute();
  const [workspaceId, setWorkspaceId] = useState<string | null>(me.workspace_id ?? sessionStorage.getItem("guardgate.workspace"));
  const [workspaces, setWorkspaces] = useState<Workspace[]>([]);
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => {
    admin<List<Workspace>>("/workspaces").then(
      (list) => {
        setWorkspaces(list.data);
        if (!workspaceId && list.data[0]) setWorkspaceId(list.data[0].id);
      },
      () => setWorkspaces([]),
    );
  }, [me.id]);
  const session: Session = useMemo(
    () => ({
      me,
      workspaceId,
      setWorkspace: (id) => {
        sessionStorage.setItem("guardgate.workspace", id);
        setWorkspaceId(id);
      },
      signOut,
    }),
    [me, workspaceId, signOut],
  );
  const allowed = PAGES.filter((p) => atLeast(me, p.role));
  const first = allowed[0]!;
  const entry = allowed.find((p) => p.path === route.parts[0]);
  const denied = route.parts[0] !== undefined && !entry && PAGES.some((p) => p.path === route.parts[0]);
  // A route naming no page is a page not found, not the first page under a wrong address.
  const unknown = route.parts[0] !== undefined && !PAGES.some((p) => p.path === route.parts[0]);
  const shown = entry ?? first;
  useEffect(() => setMenuOpen(false), [route.parts.join("/")]);
  return (
    <SessionContext.Provider value={session}>
      <header class="top">
        <a class="brand" href={href([first.path])}>
          guardgate
        </a>
        <button type="button" class="menu small" aria-expanded={menuOpen} onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <nav class={menuOpen ? "open" : ""} aria-label="Pages">
          {allowed.map((p) => (
            <a key={p.path} href={href([p.path])} class={p.path === shown.path && !unknown ? "current" : ""} data-page={p.path}>
              {p.title}
            </a>
          ))}
        </nav>
        <div class="who">
          {me.role === "org_admin" && workspaces.length > 0 && (
            <select
              aria-label="Workspace"
              name="workspace"
              value={workspaceId ?? ""}
              onChange={(e) => session.setWorkspace((e.target as HTMLSelectElement).value)}
            >
              {workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          )}
          <span class="role" data-role={me.role} title={`key ${me.hint}`}>
            {me.name} · {me.role.replace("_", " ")}
          </span>
          <ThemeToggle />
          <button type="button" class="small" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main class="content">
        {unknown ? (
          <section class="not-found" data-page="not-found">
            <h1>Page not found</h1>
            <p class="muted">
              The console has no page at <code>#/{route.parts.join("/")}</code>.{" "}
              <a href={href([first.path])}>Go to {first.title}</a>.
            </p>
          </section>
        ) : denied ? (
          <p class="error" role="alert">
            This page needs a stronger role than {me.role.replace("_", " ")}.
          </p>
        ) : shown.workspace && !workspaceId ? (
          <p class="muted">Choose a workspace.</p>
        ) : (
          <Page key={`${shown.path}:${workspaceId}`} entry={shown} parts={route.parts} />
        )}
      </main>
    </SessionContext.Provider>
  );
}

function App() {
  const [me, setMe] = useState<Me | null>(null);
  const [checking, setChecking] = useState(Boolean(storedKey()));
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    if (!storedKey()) return;
    call<Me>("GET", "/admin/v1/me").then(
      (found) => {
        setMe(found);
        setChecking(false);
      },
      (error: unknown) => {
        forgetKey();
        setProblem(messageOf(error));
        setChecking(false);
      },
    );
  }, []);
  const signOut = useMemo(
    () => () => {
      forgetKey();
      sessionStorage.removeItem("guardgate.workspace");
      setMe(null);
      location.hash = "";
    },
    [],
  );
  if (checking) return <p class="muted">Loading…</p>;
  if (!me) return <SignIn onSignedIn={setMe} problem={problem} />;
  return <Shell me={me} signOut={signOut} />;
}

render(<App />, document.getElementById("app")!);
