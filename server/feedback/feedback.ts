/**
 * Feedback on answers (`POST /v1/feedback`, `PUT /v1/feedback/:id`), as the peer gateway takes it:
 * `{trace_id, value, weight?, metadata?}` where `trace_id` is an answer's `x-gateway-request-id`.
 * Only a key of the workspace that made the request may send it; anyone else learns nothing (404).
 *
 * A request is known when the store holds its log, or when this instance answered it lately
 * (recent-requests.ts): feedback sent right after an answer is never refused because the log
 * writer has not stored the record yet. An id neither knows may be another instance's answer
 * whose record is on its way, so the store is asked again for a short while before a 404.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { GatewayError } from "../errors.js";
import { newTimeOrderedId } from "../store/ids.js";
import type { FeedbackRecord } from "../store/log-types.js";
import type { Store } from "../store/repository.js";
import type { RecentRequests } from "./recent-requests.js";

/** Bounds of a feedback body, so a client cannot grow the store with one call. */
export const FEEDBACK_LIMITS = {
  metadataKeys: 32,
  metadataKeyLength: 64,
  metadataValueLength: 1024,
  traceIdLength: 128,
  /** Entries one answer may hold: enough for every reviewer of it, not a way to grow the store. */
  perTrace: 100,
  /** Feedback calls (POST and PUT) one API key may make per minute. */
  perMinute: 600,
};

/** The fields of a feedback body, checked. */
export interface FeedbackInput {
  value?: number;
  weight?: number;
  metadata?: Record<string, string>;
}

/** The answer of both routes, the peer gateway's shape. */
export interface FeedbackAnswer {
  status: "success";
  message: string;
  feedback_ids: string[];
}

function invalid(message: string): GatewayError {
  return new GatewayError("invalid_feedback", message);
}

/** Checks a body's value, weight and metadata; `required` names the fields that must be there. */
export function parseFeedbackFields(body: unknown, required: { value: boolean }): FeedbackInput {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalid("the body must be a JSON object");
  const fields = body as Record<string, unknown>;
  const input: FeedbackInput = {};
  if (fields.value === undefined) {
    if (required.value) throw invalid("value: is required (an integer from -10 to 10)");
  } else if (!Number.isInteger(fields.value) || (fields.value as number) < -10 || (fields.value as number) > 10) {
    throw invalid(`value: must be an integer from -10 to 10, not ${JSON.stringify(fields.value)}`);
  } else input.value = fields.value as number;
  if (fields.weight !== undefined) {
    const weight = fields.weight;
    if (typeof weight !== "number" || !Number.isFinite(weight) || weight < 0 || weight > 1)
      throw invalid(`weight: must be a number from 0 to 1, not ${JSON.stringify(weight)}`);
    input.weight = weight;
  }
  if (fields.metadata !== undefined) {
    const metadata = fields.metadata;
    if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))
      throw invalid("metadata: must be an object whose values are strings");
    const entries = Object.entries(metadata);
    if (entries.length > FEEDBACK_LIMITS.metadataKeys)
      throw invalid(`metadata: has ${entries.length} keys; at most ${FEEDBACK_LIMITS.metadataKeys} are kept`);
    for (const [key, value] of entries) {
      if (key.length > FEEDBACK_LIMITS.metadataKeyLength)
        throw invalid(`metadata: the key "${key.slice(0, 20)}…" is longer than ${FEEDBACK_LIMITS.metadataKeyLength} characters`);
      if (typeof value !== "string") throw invalid(`metadata.${key}: must be a string, not ${typeof value}`);
      if (value.length > FEEDBACK_LIMITS.metadataValueLength)
        throw invalid(`metadata.${key}: is longer than ${FEEDBACK_LIMITS.metadataValueLength} characters`);
    }
    input.metadata = { ...(metadata as Record<string, string>) };
  }
  for (const key of Object.keys(fields)) {
    if (!["trace_id", "value", "weight", "metadata"].includes(key))
      throw invalid(`${key}: is not a field of feedback (trace_id, value, weight, metadata)`);
  }
  return input;
}

/** Options of the service. */
export interface FeedbackServiceOptions {
  store: Store;
  recent: RecentRequests;
  /** How long to keep asking the store for a log no instance here knows, ms; default 2000. */
  logWaitMs?: number;
  /** Entries one answer may hold; default FEEDBACK_LIMITS.perTrace. */
  perTrace?: number;
  /** Told of every feedback stored (the metric). */
  onStored?: (count: number) => void;
  now?: () => number;
}

export class FeedbackService {
  readonly #store: Store;
  readonly #recent: RecentRequests;
  readonly #logWaitMs: number;
  readonly #onStored: (count: number) => void;
  readonly #now: () => number;
  readonly #perTrace: number;
  /** The last write queued per answer, while one is. */
  readonly #queues = new Map<string, Promise<void>>();

  constructor(options: FeedbackServiceOptions) {
    this.#store = options.store;
    this.#recent = options.recent;
    this.#logWaitMs = options.logWaitMs ?? 2000;
    this.#onStored = options.onStored ?? (() => {});
    this.#now = options.now ?? Date.now;
    this.#perTrace = options.perTrace ?? FEEDBACK_LIMITS.perTrace;
  }

  /** Stores feedback on the answer `body.trace_id` names, for a caller of `workspaceId`. */
  async send(workspaceId: string, body: unknown): Promise<FeedbackAnswer> {
    const input = parseFeedbackFields(body, { value: true });
    const traceId = (body as { trace_id?: unknown }).trace_id;
    if (typeof traceId !== "string" || traceId.length === 0 || traceId.length > FEEDBACK_LIMITS.traceIdLength)
      throw invalid(
        `trace_id: is required: the x-gateway-request-id of an answer (a string of at most ${FEEDBACK_LIMITS.traceIdLength} characters)`,
      );
    const organizationId = await this.#owner(workspaceId, traceId);
    // One at a time per answer, so entries sent together cannot all pass the count.
    return this.#oneAtATime(traceId, async () => {
      const held = (await this.#store.feedback.forLogs([traceId])).length;
      if (held >= this.#perTrace)
        throw new GatewayError(
          "feedback_limit_reached",
          `trace_id: the answer "${traceId}" holds ${held} feedback entries, the most one answer may hold (${this.#perTrace}); change one with PUT /v1/feedback/:id instead`,
        );
      return this.#insert(workspaceId, organizationId, traceId, input);
    });
  }

  async #insert(
    workspaceId: string,
    organizationId: string | null,
    traceId: string,
    input: FeedbackInput,
  ): Promise<FeedbackAnswer> {
    const at = new Date(this.#now()).toISOString();
    const record: FeedbackRecord = {
      id: newTimeOrderedId("fb", this.#now()),
      log_id: traceId,
      organization_id: organizationId,
      workspace_id: workspaceId,
      value: input.value!,
      weight: input.weight ?? 1,
      metadata: input.metadata ?? {},
      created_at: at,
      updated_at: at,
    };
    if (!(await this.#store.feedback.insert([record]))) throw new Error(`feedback id ${record.id} was taken`);
    this.#onStored(1);
    return { status: "success", message: "feedback saved", feedback_ids: [record.id] };
  }

  /** Replaces the value, weight or metadata of one feedback of the caller's workspace. */
  async update(workspaceId: string, id: string, body: unknown): Promise<FeedbackAnswer> {
    const input = parseFeedbackFields(body, { value: false });
    if ((body as { trace_id?: unknown }).trace_id !== undefined)
      throw invalid("trace_id: cannot change; send new feedback on the other answer instead");
    const existing = await this.#store.feedback.get(id);
    if (!existing || existing.workspace_id !== workspaceId)
      throw new GatewayError("unknown_feedback", `feedback "${id}" is not one of this workspace's`);
    if (input.value === undefined && input.weight === undefined && input.metadata === undefined)
      throw invalid("the body changes nothing: give value, weight or metadata");
    const updated = await this.#store.feedback.update(id, input, new Date(this.#now()).toISOString());
    if (!updated) throw new GatewayError("unknown_feedback", `feedback "${id}" is not one of this workspace's`);
    return { status: "success", message: "feedback updated", feedback_ids: [id] };
  }

  /** Runs `work` after the work queued before it on the same answer. */
  async #oneAtATime<T>(traceId: string, work: () => Promise<T>): Promise<T> {
    const before = this.#queues.get(traceId) ?? Promise.resolve();
    const run = before.then(work, work);
    const settled = run.then(
      () => {},
      () => {},
    );
    this.#queues.set(traceId, settled);
    try {
      return await run;
    } finally {
      if (this.#queues.get(traceId) === settled) this.#queues.delete(traceId);
    }
  }

  /** The organization of the request `traceId` when the workspace made it; a 404 otherwise. */
  async #owner(workspaceId: string, traceId: string): Promise<string | null> {
    const deadline = this.#now() + this.#logWaitMs;
    for (let attempt = 0; ; attempt++) {
      const answeredTo = this.#recent.workspaceOf(traceId);
      if (answeredTo !== undefined && answeredTo !== workspaceId) break;
      if (answeredTo === workspaceId) return (await this.#store.workspaces.get(workspaceId))?.organization_id ?? null;
      const log = await this.#store.logs.get(traceId);
      if (log) {
        if (log.workspace_id !== workspaceId) break;
        return log.organization_id;
      }
      if (this.#now() >= deadline) break;
      await sleep(Math.min(100 * 2 ** Math.min(attempt, 3), Math.max(1, deadline - this.#now())));
    }
    throw new GatewayError("unknown_trace", `trace_id: this workspace has no request "${traceId}"`);
  }
}
