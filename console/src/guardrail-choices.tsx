/** Tick boxes for attaching a workspace's saved guardrails to one side (configs, policies). */

/** A saved guardrail as the choices list it. */
export interface GuardrailChoice {
  id: string;
  name: string;
  definition: { side?: "input" | "output" };
}

/**
 * The saved guardrails that fit `side`, each a checkbox named `${field}:${id}`; `chosen` holds the
 * ids ticked, in the order they were ticked.
 */
export function GuardrailChoices({
  field,
  side,
  guardrails,
  chosen,
  onChange,
}: {
  field: string;
  side: "input" | "output";
  guardrails: GuardrailChoice[];
  chosen: string[];
  onChange(ids: string[]): void;
}) {
  return (
    <div class="choices">
      {guardrails
        .filter((g) => !g.definition.side || g.definition.side === side)
        .map((g) => (
          <label class="inline" key={g.id}>
            <input
              type="checkbox"
              name={`${field}:${g.id}`}
              checked={chosen.includes(g.id)}
              onChange={(e) => {
                const on = (e.target as HTMLInputElement).checked;
                onChange(on ? [...chosen, g.id] : chosen.filter((x) => x !== g.id));
              }}
            />{" "}
            {g.name} <code>{g.id}</code>
          </label>
        ))}
    </div>
  );
}
