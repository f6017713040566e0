/**
 * The Responses API's conversations for providers reached through the chat form, which keep none
 * of their own: each answered response is stored with every input item of the conversation up
 * to it, so `previous_response_id` continues it and `/v1/responses/{id}` reads it back. Stored
 * per workspace, only where the workspace keeps bodies, and never for a request with
 * `store: false`. A response that passed through to OpenAI or Azure is the provider's to keep.
 */
import { GatewayError } from "../errors.js";
import type { StoredResponseRepository } from "../store/repository.js";
import type { StoredResponse } from "../store/response-types.js";
import type { Json } from "./kind.js";
import { isJson, jsonItems } from "./translate.js";

/** The 404 of a response this workspace has not stored, in the words OpenAI uses. */
export function responseNotFound(id: string): GatewayError {
  return new GatewayError("response_not_found", `Response with id '${id}' not found.`);
}

/** A request's own input as items: a string input is one user message. */
export function inputItems(input: unknown): Json[] {
  if (typeof input === "string") return [{ type: "message", role: "user", content: [{ type: "input_text", text: input }] }];
  return jsonItems(input);
}

/** A response's output items as the input items that continue its conversation. */
function continuing(response: Json): Json[] {
  return jsonItems(response.output).filter((item) => item.type === "message" || item.type === "function_call");
}

export class Conversations {
  constructor(
    private readonly repository: StoredResponseRepository,
    /** Whether a workspace keeps bodies (the request log's rule): a response is stored only where it does. */
    private readonly keepsBodies: (workspaceId: string) => Promise<boolean> | boolean,
  ) {}

  /** The workspace's stored response; a 404 when there is none. */
  async get(workspaceId: string, id: string): Promise<StoredResponse> {
    const record = await this.repository.get(workspaceId, id);
    if (!record) throw responseNotFound(id);
    return record;
  }

  /** Deletes the workspace's stored response; a 404 when there is none. */
  async delete(workspaceId: string, id: string): Promise<void> {
    if (!(await this.repository.delete(workspaceId, id))) throw responseNotFound(id);
  }

  /** The items of the conversation up to and including response `id`: every input item, then its output. */
  async history(workspaceId: string, id: string): Promise<Json[]> {
    const record = await this.get(workspaceId, id);
    return [...record.input, ...continuing(record.response)];
  }

  /**
   * Stores a translated response the client received, unless the request said `store: false`
   * or the workspace keeps no bodies; resolves once it is written, so a request naming it as
   * `previous_response_id` right after finds it.
   */
  async keep(workspaceId: string, request: Json, response: unknown): Promise<void> {
    if (request.store === false || !isJson(response) || typeof response.id !== "string") return;
    if (!Array.isArray(response.output)) return;
    if (!(await this.keepsBodies(workspaceId))) return;
    const previous = typeof request.previous_response_id === "string" ? request.previous_response_id : null;
    const earlier = previous ? await this.history(workspaceId, previous) : [];
    await this.repository.put({
      id: response.id,
      workspace_id: workspaceId,
      previous_response_id: previous,
      input: [...earlier, ...inputItems(request.input)],
      response,
      created_at: new Date().toISOString(),
    });
  }
}
