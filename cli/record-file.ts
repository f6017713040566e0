/**
 * Reads the records an `apply` command saves: a JSON or YAML file holding one record, a list of
 * them, or an object with the list under the kind's plural name; each must be an object with its
 * key (an id, or the name of a kind whose records are named, as MCP servers are).
 */
import { readFile } from "node:fs/promises";
import YAML from "yaml";
import { UsageError } from "./store-access.js";

/** The records of `file`; a file that cannot be read or parsed, or a record without its key, is a usage error. */
export async function readRecordFile<T>(file: string, kind: { one: string; many: string; key?: "id" | "name" }): Promise<T[]> {
  const key = kind.key ?? "id";
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const yaml = /\.ya?ml$/i.test(file);
  let parsed: unknown;
  try {
    parsed = yaml ? YAML.parse(text) : JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file} is not valid ${yaml ? "YAML" : "JSON"}: ${(error as Error).message}`);
  }
  const listed = (parsed as Record<string, unknown> | null)?.[kind.many];
  const list: unknown[] = Array.isArray(parsed) ? parsed : Array.isArray(listed) ? listed : [parsed];
  return list.map((item, index) => {
    if (!item || typeof item !== "object" || Array.isArray(item))
      throw new UsageError(`${file}: ${kind.one} ${index} is not an object`);
    if (typeof (item as Record<string, unknown>)[key] !== "string") {
      throw new UsageError(`${file}: ${kind.one} ${index} needs ${key === "id" ? "an id" : "a name"}`);
    }
    return item as T;
  });
}
