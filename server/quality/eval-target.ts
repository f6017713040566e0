/**
 * What an evaluation runs: a guardrail written in a file, a guardrail saved in a workspace, or a
 * policy's guardrails, each prepared as the gateway prepares it (a bad one is refused here, naming
 * the field, before any row runs).
 */
import { ConfigError, type CheckRegistry, type GuardrailDefinition, type Side } from "../../core/index.js";
import { prepareGuardrail } from "../../core/internal.js";
import type { Actor } from "../management/actor.js";
import type { ManagementContext } from "../management/context.js";
import { prepareRecord, recordDefinition } from "../management/guardrails.js";
import { policyVisibleTo } from "../management/policies.js";
import { preparePolicyGuardrails } from "../policies/attach.js";
import { notFound } from "../store/errors.js";
import type { EvalTarget } from "./eval.js";

/**
 * A guardrail definition, read from the file `where` (or, with `fromFile` false, from the request
 * field `where`): prepared for its own side, the input side when it names none.
 */
export function targetFromDefinition(registry: CheckRegistry, definition: unknown, where: string, fromFile = true): EvalTarget {
  if (typeof definition !== "object" || definition === null || Array.isArray(definition) || !("checks" in definition))
    throw new ConfigError("", `${where}: must hold one guardrail object {id, checks, ...}`);
  const def = definition as GuardrailDefinition;
  const side: Side = def.side === "output" ? "output" : "input";
  let guardrail;
  try {
    guardrail = prepareGuardrail(def, { side, inline: false, path: "", registry }).guardrail;
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError("", `${where}: ${error.message}`, error.code);
    throw error;
  }
  return {
    subject: {
      kind: "file",
      // Reports name the guardrail by its own id, as its results and the gateway's logs do.
      id: typeof def.id === "string" && def.id !== "" ? def.id : where,
      ...(fromFile && { file: where }),
      ...(typeof def.name === "string" && { name: def.name }),
    },
    guardrails: { input: side === "input" ? [guardrail] : [], output: side === "output" ? [guardrail] : [] },
  };
}

/** A guardrail saved in a workspace. */
export async function targetFromGuardrail(ctx: ManagementContext, workspaceId: string, id: string): Promise<EvalTarget> {
  const record = await ctx.store.guardrails.get(workspaceId, id);
  if (!record) throw notFound(`guardrail "${id}" in workspace "${workspaceId}"`);
  const guardrail = prepareRecord(ctx, recordDefinition(record), `guardrail "${record.id}"`);
  return {
    subject: { kind: "guardrail", id: record.id, name: record.name, workspace_id: workspaceId, version: record.version },
    guardrails: {
      input: guardrail.side === "input" ? [guardrail] : [],
      output: guardrail.side === "output" ? [guardrail] : [],
    },
  };
}

/**
 * A policy's guardrails of both sides (a monitor policy's too: evaluation asks what they decide),
 * when the caller may read it and it is organisation-wide or the workspace's own (any workspace's
 * of the organisation when no workspace is named: the operator's CLI); 404 otherwise, so an
 * evaluation tells nothing of another workspace's policy.
 */
export async function targetFromPolicy(
  ctx: ManagementContext,
  actor: Actor,
  workspace: { organization_id: string; id?: string },
  id: string,
): Promise<EvalTarget> {
  const policy = await ctx.store.policies.get(id);
  const reaches =
    policy !== undefined &&
    policy.organization_id === workspace.organization_id &&
    (policy.workspace_id === null || workspace.id === undefined || policy.workspace_id === workspace.id) &&
    policyVisibleTo(actor, policy);
  if (!reaches) throw notFound(`policy "${id}"`);
  return {
    subject: {
      kind: "policy",
      id: policy.id,
      name: policy.name,
      ...(policy.workspace_id && { workspace_id: policy.workspace_id }),
    },
    guardrails: {
      input: preparePolicyGuardrails(ctx.registry, policy, "input"),
      output: preparePolicyGuardrails(ctx.registry, policy, "output"),
    },
  };
}
