/**
 * The id a new record gets from its name when the id field is left empty: "Short prompts" becomes
 * `short-prompts`. It matches the gateway's id pattern (`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`); a
 * name with no letter or digit gives "", and the gateway then makes an id itself.
 */
export function idFromName(name: string | undefined): string {
  return (name ?? "")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9_.]+/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .slice(0, 128)
    .replace(/[-_.]+$/, "");
}
