/**
 * The MCP proxy's interceptor (server/mcp/intercept.ts, met by shape): what the gateway enforces
 * on tool traffic. A `tools/call` is refused before the server sees it when the tool is outside
 * the server's tool controls, withheld by its pin, or denied by a tool-input guardrail, and its
 * arguments are forwarded redacted when one redacts; `tools/list` shows only the tools allowed,
 * pinned and whose descriptions pass the input guardrails; a result, resource or prompt denied by
 * a tool-output guardrail never reaches the client. A refusal is a tool result with `isError:
 * true` naming the guardrail, so the agent's model reads a refusal, not a transport failure.
 */
import type { CheckRegistry, Guardrail } from "../../core/index.js";
import { prepareGuardrail } from "../../core/internal.js";
import type { Phases } from "../request/phases.js";
import type { PolicyAttacher } from "../policies/attach.js";
import { GatewayError } from "../errors.js";
import type { ApiKeyIdentity, ToolPinSource } from "../sources/types.js";
import type { GuardedCall, ToolCallVerdicts } from "./tool-call.js";
import { type EndedCall, RECORDED_METHODS, type ToolCallLog, writeToolCallRecord } from "./tool-call-record.js";
import { OPEN_CONTROLS, toolAllowed } from "./tool-controls.js";
import { ListedTools } from "./listed-tools.js";
import { reviewListing } from "./tool-listing.js";
import { TOOL_PACKS, type ToolPack } from "./tool-pack.js";
import { runToolSide, type ToolPhaseContext } from "./tool-phases.js";
import {
  callArgumentSlots,
  callResultSlots,
  promptSlots,
  resourceSlots,
  type TextSlot,
  writeSlots,
} from "../formats/mcp-text.js";

/** What the guard decides of a request (server/mcp/intercept.ts `McpRequestDecision`). */
export type GuardRequestDecision =
  | { action: "forward"; params?: Record<string, unknown> | undefined }
  | { action: "answer"; result: Record<string, unknown> }
  | { action: "error"; error: { code: number; message: string; data?: unknown } };

/** What the guard decides of a result (server/mcp/intercept.ts `McpResultDecision`). */
export type GuardResultDecision =
  | { action: "pass" }
  | { action: "replace"; result: Record<string, unknown> }
  | { action: "error"; error: { code: number; message: string; data?: unknown } };

/** The JSON-RPC code of a resource or prompt a guardrail denied (MCP's server range; the proxy uses -32000…-32002). */
export const GUARDRAIL_DENIED_CODE = -32003;

/** The JSON-RPC code of a resource or prompt read a rate limit refused; `data` says which code and when to retry. */
export const LIMIT_REFUSED_CODE = -32004;

export interface ToolGuardOptions {
  phases: Phases;
  registry: CheckRegistry;
  pins: ToolPinSource;
  policies?: PolicyAttacher;
  /** Admits each recorded call as a request of the key (rate limits); every call is admitted when absent. */
  admit?: (identity: ApiKeyIdentity) => Promise<void>;
  /** Where each guarded call's record goes; unrecorded when absent. */
  log?: ToolCallLog;
  /** Told of a record that could not be written. */
  onLogError?: (error: unknown) => void;
}

/** A refusal as a tool result: the agent's model reads it; the refused text is never in it. */
export function refusal(text: string): Record<string, unknown> {
  return { content: [{ type: "text", text }], isError: true };
}

/** Guards tool traffic; see the top of this file. */
export class ToolGuard {
  readonly #packs = new Map<string, { input: Guardrail[]; output: Guardrail[]; descriptions: Guardrail[] }>();
  /** Each call's verdicts, for the record `end` writes. */
  readonly #verdicts = new WeakMap<object, ToolCallVerdicts>();
  /** The checked input texts of each call, which the output side's checks may read as the request. */
  readonly #inputs = new WeakMap<object, string[]>();
  /** When each recorded call began (`performance.now()`). */
  readonly #started = new WeakMap<object, number>();

  /** The tools each server showed its clients, for bounded metric labels. */
  readonly listed = new ListedTools();

  constructor(private readonly options: ToolGuardOptions) {}

  /** The verdicts the guard gave a call so far (undefined when it checked nothing). */
  verdictsOf(call: object): ToolCallVerdicts | undefined {
    return this.#verdicts.get(call);
  }

  #record(call: object): ToolCallVerdicts {
    let verdicts = this.#verdicts.get(call);
    if (!verdicts) this.#verdicts.set(call, (verdicts = { input: [], output: [], later: [] }));
    return verdicts;
  }

  /** A pack's guardrails, prepared once; a pack whose checks cannot load fails every call closed. */
  #pack(name: string | undefined): { input: Guardrail[]; output: Guardrail[]; descriptions: Guardrail[] } {
    if (name === undefined) return { input: [], output: [], descriptions: [] };
    let prepared = this.#packs.get(name);
    if (!prepared) {
      const pack: ToolPack | undefined = TOOL_PACKS[name];
      if (!pack) throw new Error(`tool pack "${name}" does not exist`);
      const prepare = (side: "input" | "output", list: ToolPack["input"], where: string) =>
        list.map(
          (definition, index) =>
            prepareGuardrail(definition, { side, inline: false, path: `${where}[${index}]`, registry: this.options.registry })
              .guardrail,
        );
      prepared = {
        input: prepare("input", pack.input, `tool_pack ${name} input`),
        output: prepare("output", pack.output, `tool_pack ${name} output`),
        descriptions: prepare("input", pack.descriptions, `tool_pack ${name} descriptions`),
      };
      this.#packs.set(name, prepared);
    }
    return prepared;
  }

  /** The guardrails of a side for this call: the policies holding it first, then the server's pack. */
  async guardrails(call: GuardedCall, side: "input" | "output" | "descriptions", tool?: string): Promise<Guardrail[]> {
    const pack = this.#pack(call.server.toolPack)[side];
    if (!this.options.policies) return pack;
    const set = await this.options.policies.forRequest({
      workspaceId: call.identity.workspaceId,
      apiKeyId: call.identity.id,
      tool: { server: call.server.name, ...(tool !== undefined && { name: tool }) },
    });
    return this.options.policies.merge(side === "output" ? "output" : "input", set, pack);
  }

  #context(call: GuardedCall): ToolPhaseContext {
    const metadata: Record<string, string> = { mcp_server: call.server.name, mcp_method: call.method };
    const tool = call.params?.name;
    if (typeof tool === "string") metadata.mcp_tool = tool;
    if (call.sessionId !== undefined) metadata.mcp_session = call.sessionId;
    return { workspaceId: call.identity.workspaceId, metadata, headers: {} };
  }

  async request(call: GuardedCall): Promise<GuardRequestDecision> {
    if (RECORDED_METHODS.has(call.method)) {
      this.#started.set(call, performance.now());
      const refused = await this.#admit(call);
      if (refused) return refused;
    }
    if (call.method !== "tools/call") return { action: "forward" };
    const name = call.params?.name;
    const verdicts = this.#record(call);
    if (typeof name !== "string") return { action: "forward" };
    const server = call.server;
    if (!toolAllowed(server.tools ?? OPEN_CONTROLS, name)) {
      verdicts.refusedBy = "tool_controls";
      return {
        action: "answer",
        result: refusal(`The gateway refused tool "${name}": it is not allowed on MCP server "${server.name}".`),
      };
    }
    const withheld = await this.#withheld(call, name);
    if (withheld) {
      verdicts.refusedBy = "tool_pin";
      return { action: "answer", result: refusal(withheld) };
    }
    const slots = callArgumentSlots(call.params);
    const texts = slots.map((slot) => slot.text);
    this.#inputs.set(call, texts);
    const guardrails = await this.guardrails(call, "input", name);
    if (!guardrails.length) return { action: "forward" };
    const { outcome, async } = await runToolSide(this.options.phases, "input", guardrails, texts, this.#context(call));
    verdicts.later.push({ side: "input", results: async });
    verdicts.input = outcome.evaluation?.results ?? [];
    if (outcome.deniedBy) {
      verdicts.refusedBy = outcome.deniedBy.id;
      return {
        action: "answer",
        result: refusal(
          `The gateway refused this call to tool "${name}": guardrail "${outcome.deniedBy.id}" denied its arguments.`,
        ),
      };
    }
    this.#inputs.set(call, outcome.texts);
    if (!outcome.evaluation?.transformed) return { action: "forward" };
    const params = writeSlots(call.params!, slots, outcome.texts);
    verdicts.forwarded = params.arguments as Record<string, unknown> | undefined;
    return { action: "forward", params };
  }

  /** Admits a call as a request of the key; a refusal answers it as its limit's code says (429 with when to retry). */
  async #admit(call: GuardedCall): Promise<GuardRequestDecision | undefined> {
    if (!this.options.admit) return undefined;
    try {
      await this.options.admit(call.identity);
      return undefined;
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      const retry = (error as { headers?: Record<string, string> }).headers?.["retry-after"];
      this.#record(call).limited = { code: error.code, status: error.status, message: error.message };
      if (call.method === "tools/call") {
        return { action: "answer", result: refusal(`The gateway refused this call (${error.code}): ${error.message}.`) };
      }
      const data = { code: error.code, status: error.status, ...(retry !== undefined && { retry_after: Number(retry) }) };
      return { action: "error", error: { code: LIMIT_REFUSED_CODE, message: error.message, data } };
    }
  }

  /** Why a called tool is withheld by its pin, or undefined when it may be called. */
  async #withheld(call: GuardedCall, name: string): Promise<string | undefined> {
    const mode = call.server.pinning ?? "first_use";
    if (mode === "off") return undefined;
    const pins = await this.options.pins.list(call.server.workspaceId ?? "", call.server.name);
    const pin = pins.find((p) => p.tool === name);
    if (pin?.status === "pinned") return undefined;
    if (pin?.status === "changed") {
      return `The gateway withheld tool "${name}": its definition changed since it was approved; an administrator must approve it again.`;
    }
    if (pin || mode === "approval")
      return `The gateway withheld tool "${name}": its definition awaits an administrator's approval.`;
    // Never listed yet: there is no pin it could break, and the first listing pins it.
    return undefined;
  }

  /** Writes the call's record once it ended, however it ended; with durable logs, resolves once it is committed. */
  end(call: GuardedCall, outcome: EndedCall): Promise<void> | undefined {
    const started = this.#started.get(call);
    if (!this.options.log || started === undefined) return undefined;
    const written = writeToolCallRecord(this.options.log, call, this.#verdicts.get(call), started, outcome, (error) =>
      this.options.onLogError?.(error),
    );
    return this.options.log.durable ? written : undefined;
  }

  async result(call: GuardedCall, result: Record<string, unknown>): Promise<GuardResultDecision> {
    switch (call.method) {
      case "tools/list":
        return this.#listing(call, result);
      case "tools/call":
        return this.#output(call, result, callResultSlots(result), (guardrail) =>
          refusal(`The gateway withheld the result of tool "${String(call.params?.name)}": guardrail "${guardrail}" denied it.`),
        );
      case "resources/read":
        return this.#output(call, result, resourceSlots(result));
      case "prompts/get":
        return this.#output(call, result, promptSlots(result));
      default:
        return { action: "pass" };
    }
  }

  async #listing(call: GuardedCall, result: Record<string, unknown>): Promise<GuardResultDecision> {
    const reviewed = await reviewListing(result, {
      server: call.server,
      pins: this.options.pins,
      checkDescription: async (texts) => {
        const guardrails = [...(await this.guardrails(call, "input")), ...this.#pack(call.server.toolPack).descriptions];
        if (!guardrails.length) return { texts, denied: undefined };
        const { outcome } = await runToolSide(this.options.phases, "input", guardrails, texts, this.#context(call));
        return { texts: outcome.texts, denied: outcome.deniedBy?.id };
      },
    });
    if (Array.isArray(reviewed.tools)) {
      this.listed.add(
        call.server.name,
        (reviewed.tools as unknown[]).flatMap((tool) => {
          const name = (tool as { name?: unknown } | null)?.name;
          return typeof name === "string" ? [name] : [];
        }),
      );
    }
    return reviewed === result ? { action: "pass" } : { action: "replace", result: reviewed };
  }

  async #output(
    call: GuardedCall,
    result: Record<string, unknown>,
    slots: TextSlot[],
    denied?: (guardrail: string) => Record<string, unknown>,
  ): Promise<GuardResultDecision> {
    const tool = typeof call.params?.name === "string" ? call.params.name : undefined;
    const guardrails = await this.guardrails(call, "output", tool);
    if (!guardrails.length) return { action: "pass" };
    const verdicts = this.#record(call);
    const texts = slots.map((slot) => slot.text);
    const inputs = this.#inputs.get(call) ?? callArgumentSlots(call.params).map((slot) => slot.text);
    const { outcome, async } = await runToolSide(this.options.phases, "output", guardrails, texts, this.#context(call), inputs);
    verdicts.later.push({ side: "output", results: async });
    verdicts.output = outcome.evaluation?.results ?? [];
    if (outcome.deniedBy) {
      const id = outcome.deniedBy.id;
      verdicts.refusedBy = id;
      if (denied) return { action: "replace", result: denied(id) };
      return {
        action: "error",
        error: {
          code: GUARDRAIL_DENIED_CODE,
          message: `The gateway withheld this ${call.method === "prompts/get" ? "prompt" : "resource"}: guardrail "${id}" denied it.`,
          data: { code: "mcp_guardrail_denied", guardrail: id },
        },
      };
    }
    if (!outcome.evaluation?.transformed) return { action: "pass" };
    return { action: "replace", result: writeSlots(result, slots, outcome.texts) };
  }
}
