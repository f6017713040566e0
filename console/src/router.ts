/**
 * Hash routing (`#/logs/abc?status=446`): every page has a link of its own, and the server only
 * ever serves one HTML file.
 */
import { useEffect, useState } from "preact/hooks";

/** The current route: its path segments and its query. */
export interface Route {
  parts: string[];
  query: URLSearchParams;
}

function current(): Route {
  const hash = location.hash.replace(/^#\/?/, "");
  const [path = "", search = ""] = hash.split("?", 2);
  return { parts: path.split("/").filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(search) };
}

/** The route, updated as the hash changes. */
export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const changed = () => setRoute(current());
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return route;
}

/** The href of a route. */
export function href(parts: string[], query?: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value) search.set(name, value);
  const text = search.toString();
  return `#/${parts.map(encodeURIComponent).join("/")}${text ? `?${text}` : ""}`;
}

/** Goes to a route. */
export function go(parts: string[], query?: Record<string, string | undefined>): void {
  location.hash = href(parts, query);
}
