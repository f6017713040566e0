/** The URL of a server guardgate connects to (Postgres, Redis), for messages: never with its password. */

/** `url` with its password replaced by `***`; `fallback` when it is not a URL. */
export function withoutPassword(url: string, fallback: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return fallback;
  }
}
