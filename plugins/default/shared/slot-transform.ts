/**
 * Transforms that work on each text of the evaluated content separately (each content part,
 * content block or prompt entry), written back in place. A redaction or a stripped character never
 * spans two parts, so no diff is needed to map the change back: the cost stays linear in the text
 * (a character diff over many scattered edits is not), and the body keeps its shape exactly.
 */
import { type CheckContext, type CheckOutcome, locateText } from "../../../core/index.js";
import { type BodyPath, PART_SEPARATOR, slotWrites } from "../../../core/internal.js";

/** The result of applying a per-text function to the evaluated content. */
export interface SlotTransform {
  /** The transformed texts, joined as the evaluated text is (for excerpts). */
  text: string;
  /** Whether any text changed. */
  changed: boolean;
  /** The transform to return from `run`: empty when nothing changed. */
  outcome: Pick<CheckOutcome, "transformedRequest" | "transformedResponse">;
}

type Container = Record<string | number, unknown>;

function shallowCopy(value: unknown): Container {
  if (Array.isArray(value)) return value.slice() as unknown as Container;
  return { ...(value as Container) };
}

/** Writes values at several paths into one copy of the body; each container on a path is copied once. */
function writeAll(body: unknown, writes: ReadonlyArray<{ path: BodyPath; value: string }>): unknown {
  const copied = new WeakSet<object>();
  const root = shallowCopy(body);
  copied.add(root);
  for (const { path, value } of writes) {
    let node = root;
    for (const key of path.slice(0, -1)) {
      let child = node[key] as Container;
      if (!copied.has(child)) {
        child = shallowCopy(child);
        copied.add(child);
        node[key] = child;
      }
      node = child;
    }
    node[path[path.length - 1] as string | number] = value;
  }
  return root;
}

/** Applies `transform` to every text of the evaluated content of the check's side. */
export function transformSlots(context: CheckContext, transform: (text: string) => string): SlotTransform {
  const input = context.side === "input";
  const body = input ? context.request : context.response;
  const located = locateText(context.side, context.requestType, body, { toolArguments: context.toolArguments !== false });
  const texts = located.slots.map((slot) => transform(slot.text));
  const text = texts.join(PART_SEPARATOR);
  // Decoded tool-argument values are written back as literals into their JSON text.
  const writes = slotWrites(located.slots, texts);
  if (writes.length === 0) return { text, changed: false, outcome: {} };
  const out = writeAll(body, writes);
  return { text, changed: true, outcome: input ? { transformedRequest: out } : { transformedResponse: out } };
}
