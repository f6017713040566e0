/**
 * `node dist/scripts/tool-pack-figures.js FILE...`: what the standard tool pack's injection
 * guardrail (server/tool-guard/tool-pack.ts) catches and misses on tool-result-like text, scored as
 * the gateway scores a tool result: each row one text block of a result, through the engine's
 * output side. Rows are `{text, label, category}` JSONL; categories are grouped by the word after
 * their first `_` pair (`bipia_indirect_email_…` → indirect email). Prints a Markdown table.
 */
import { readFileSync } from "node:fs";
import { createEngine } from "../index.js";
import { prepareGuardrail } from "../core/internal.js";
import { STANDARD_TOOL_PACK } from "../server/tool-guard/tool-pack.js";
import { inputCarrier, outputCarrier } from "../server/tool-guard/tool-phases.js";

interface Row {
  text: string;
  label: 0 | 1;
  category?: string;
}

const files = process.argv.slice(2);
if (!files.length) {
  console.error("usage: tool-pack-figures FILE...");
  process.exit(2);
}
const rows: Row[] = files.flatMap((file) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Row),
);

/** `bipia_indirect_email_start_x` → `indirect email`; `bipia_clean_table_context` → `clean table`. */
function groupOf(row: Row): string {
  const parts = (row.category ?? "").split("_");
  return parts.length >= 3 ? `${parts[1]} ${parts[2]}` : (row.category ?? "all");
}

const engine = await createEngine();
const guardrail = prepareGuardrail(STANDARD_TOOL_PACK.output[0], {
  side: "output",
  inline: false,
  path: "tool_pack",
  registry: engine.registry,
}).guardrail;
const counts = new Map<string, { rows: number; flagged: number; label: 0 | 1 }>();
for (const row of rows) {
  const evaluation = await engine.evaluate({
    side: "output",
    prepared: [guardrail],
    requestType: "chatComplete",
    request: inputCarrier([]),
    response: outputCarrier([row.text]),
  });
  const group = `${groupOf(row)} (${row.label ? "attack" : "benign"})`;
  const entry = counts.get(group) ?? { rows: 0, flagged: 0, label: row.label };
  entry.rows++;
  if (evaluation.status === 446) entry.flagged++;
  counts.set(group, entry);
}
await engine.close();
console.log("| rows | count | denied | share % |\n|---|---:|---:|---:|");
for (const [group, { rows: n, flagged }] of [...counts].sort()) {
  console.log(`| ${group} | ${n} | ${flagged} | ${((100 * flagged) / n).toFixed(1)} |`);
}
