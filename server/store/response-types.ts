/** Responses the gateway keeps for the Responses API when it answered them through the chat form. */

/** One stored response: the conversation up to it (its input items, those of earlier turns first) and the Response object. */
export interface StoredResponse {
  /** The Response object's id (`resp_…`). */
  id: string;
  workspace_id: string;
  previous_response_id: string | null;
  /** The input items of every turn up to this one, oldest first; a string input stands as a user message item. */
  input: Record<string, unknown>[];
  /** The Response object as the client received it. */
  response: Record<string, unknown>;
  created_at: string;
}
