/**
 * The request-log sink over the store: turns a request's record (record.ts) into a log entry (organization,
 * provider and integration ids, upstream latency, retries, target, tokens, cost), removes bodies
 * unless the workspace keeps them and credentials always, and hands it to the batch writer.
 */
import { type GuardrailRow, guardrailRows, type NewLogEntry } from "../store/log-types.js";
import type { Store } from "../store/repository.js";
import type { Organization, Scope, WorkspaceSettings } from "../store/types.js";
import { BatchWriter, type BatchWriterOptions } from "./batch-writer.js";
import { redactedJson, redactedString } from "./redact.js";
import type { AttemptRecord, LogUsage, RequestLogRecord } from "./record.js";
import type { RequestLogSink } from "./sink.js";

/**
 * What the sink reads of the gateway's sources (management/gateway-sources.ts): a record's workspace,
 * for its organization and whether it keeps bodies, and its provider, for ids and the secrets to
 * cut. Named here so the logs read nothing of the management plane that reads them.
 */
export interface LogSources {
  workspace(
    workspaceId: string,
  ): Promise<{ organization: Pick<Organization, "id">; settings: Pick<WorkspaceSettings, "log_bodies"> } | undefined>;
  providers: {
    get(
      slug: string,
      scope: Scope,
    ): Promise<{ apiKey?: string; headers?: Record<string, string>; providerId: string; integrationId: string } | undefined>;
  };
}

/** Options of the sink. */
export interface StoreLogSinkOptions extends Omit<BatchWriterOptions<NewLogEntry>, "write"> {
  store: Store;
  sources: LogSources;
  /** Secrets to cut out of every record besides the provider's (e.g. the caller's key). */
  extraSecrets?: () => Iterable<string>;
  /** Whether bodies are kept when neither the workspace nor its organization says. */
  logBodiesDefault?: boolean;
  /** Writes a batch of entries; default the store's own `logs.insert` (see LogWriterThread). */
  insert?: (batch: NewLogEntry[]) => Promise<void>;
}

/** Time spent on upstream calls; null when no attempt reached the upstream (an input denial). */
function upstreamLatency(attempts: AttemptRecord[]): number | null {
  const called = attempts.filter((a) => !a.before_upstream);
  return called.length ? called.reduce((sum, a) => sum + a.latency_ms, 0) : null;
}

function tokens(usage: LogUsage | undefined, side: "input" | "output"): number | null {
  const value = side === "input" ? usage?.input_tokens : usage?.output_tokens;
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/**
 * The record as JSON text, redacted. A record is always kept: when it cannot be serialised whole
 * (data nested too deep for JSON.stringify), the bodies go first, then the checks' data, each
 * replaced by a note saying why.
 */
function serialisedRecord(kept: Record<string, unknown>, secrets: Array<string | undefined>): string {
  try {
    return redactedJson(kept, secrets);
  } catch (error) {
    const why = `not kept: it cannot be serialised (${(error as Error).message})`;
    const { request, response, ...rest } = kept;
    const bodyNotes = { ...(request !== undefined && { request: why }), ...(response !== undefined && { response: why }) };
    const lean: Record<string, unknown> = { ...rest, ...(Object.keys(bodyNotes).length && { body_notes: bodyNotes }) };
    try {
      return redactedJson(lean, secrets);
    } catch {
      const hooks = lean.hook_results as Record<string, Array<{ checks?: Array<Record<string, unknown>> }>> | undefined;
      const strip = (list: Array<{ checks?: Array<Record<string, unknown>> }> = []) =>
        list.map((g) => ({ ...g, checks: (g.checks ?? []).map((c) => ({ ...c, data: { omitted: why } })) }));
      const stripped = {
        ...lean,
        // Each attempt's own results carry the same data: the attempts stay, their results go.
        attempts: Array.isArray(lean.attempts)
          ? lean.attempts.map((a: Record<string, unknown>) => ({ ...a, hook_results: undefined }))
          : [],
        hook_results: {
          before_request_hooks: strip(hooks?.before_request_hooks),
          after_request_hooks: strip(hooks?.after_request_hooks),
        },
      };
      return redactedJson(stripped, secrets);
    }
  }
}

/**
 * The record's guardrail and check rows, as the store would read them back from its stored text:
 * made here from the objects, so the writer thread need not parse the text again. Only names can
 * differ from the stored text's (a secret cut out of one); they are cut the same way.
 */
function storedRows(kept: Record<string, unknown>, secrets: Array<string | undefined>): GuardrailRow[] {
  const rows = guardrailRows(kept);
  for (const row of rows) {
    row.guardrail_id = redactedString(row.guardrail_id, secrets);
    for (const check of row.checks) check.check_id = redactedString(check.check_id, secrets);
  }
  return rows;
}

/** Writes gateway records to the store through a batch writer (the gateway's RequestLogSink). */
export class StoreLogSink implements RequestLogSink {
  readonly #sources: LogSources;
  readonly #writer: BatchWriter<NewLogEntry>;
  readonly #extraSecrets: () => Iterable<string>;
  readonly #preparing = new Set<Promise<void>>();
  readonly #logBodiesDefault: boolean;

  constructor(options: StoreLogSinkOptions) {
    const { store, sources, extraSecrets, logBodiesDefault, insert, ...writerOptions } = options;
    this.#sources = sources;
    this.#logBodiesDefault = logBodiesDefault ?? false;
    this.#extraSecrets = extraSecrets ?? (() => []);
    this.#writer = new BatchWriter<NewLogEntry>({ ...writerOptions, write: insert ?? ((batch) => store.logs.insert(batch)) });
  }

  /** Records written to the store so far. */
  get written(): number {
    return this.#writer.written;
  }

  /** Records accepted and not yet written. */
  get pending(): number {
    return this.#writer.pending + this.#preparing.size;
  }

  /** Accepts one record; resolves once it is queued (waiting while the queue is full). */
  write(record: RequestLogRecord, options?: { committed?: boolean }): Promise<void> {
    const job = this.#prepare(record).then((entry) =>
      options?.committed ? this.#writer.writeCommitted(entry) : this.#writer.write(entry),
    );
    this.#preparing.add(job);
    return job.finally(() => this.#preparing.delete(job));
  }

  /** Whether a workspace keeps bodies in its log: its settings say, else the gateway's default. */
  async keepsBodies(workspaceId: string): Promise<boolean> {
    const context = await this.#sources.workspace(workspaceId);
    return context?.settings.log_bodies ?? this.#logBodiesDefault;
  }

  /** Resolves once every record accepted so far is written. */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.#preparing]);
    await this.#writer.flush();
  }

  /** Writes every accepted record, then refuses more. */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.#preparing]);
    await this.#writer.stop();
  }

  async #prepare(record: RequestLogRecord): Promise<NewLogEntry> {
    const context = await this.#sources.workspace(record.workspace_id);
    // The gateway names a provider by `@slug` (or by kind, which finds no record).
    const slug = record.provider?.startsWith("@") ? record.provider.slice(1) : record.provider;
    const provider =
      slug !== undefined ? await this.#sources.providers.get(slug, { workspaceId: record.workspace_id }) : undefined;
    const keepsBodies = context?.settings.log_bodies ?? this.#logBodiesDefault;
    // The record itself when nothing is left out of it (no bodies, or bodies kept): not a copy of
    // its thirty-odd members per request. Its text is the same, undefined members being left out.
    let kept = record as unknown as Record<string, unknown>;
    if (!keepsBodies && (record.request !== undefined || record.response !== undefined)) {
      const { request: _request, response: _response, ...rest } = record;
      kept = rest;
    }
    const attempts = record.attempts;
    const last = attempts.at(-1);
    const { id, created_at: createdAt } = record;
    const secrets = [provider?.apiKey, ...Object.values(provider?.headers ?? {}), ...this.#extraSecrets()];
    return {
      id,
      created_at: createdAt,
      organization_id: context?.organization.id ?? null,
      workspace_id: record.workspace_id,
      api_key_id: record.api_key_id,
      route: record.route,
      request_type: record.request_type,
      status: record.status,
      latency_ms: record.latency_ms,
      upstream_latency_ms: upstreamLatency(attempts),
      provider: record.provider ?? null,
      provider_id: record.provider_id ?? provider?.providerId ?? null,
      integration_id: record.integration_id ?? provider?.integrationId ?? null,
      model: record.model ?? last?.model ?? null,
      config_id: record.config_id ?? null,
      cache_status: record.cache_status ?? null,
      retry_count: Math.max(0, attempts.length - 1),
      target: last?.target ?? null,
      input_tokens: tokens(record.usage, "input"),
      output_tokens: tokens(record.usage, "output"),
      cost: typeof record.cost === "number" ? record.cost : null,
      error_code: record.error?.code ?? null,
      record: serialisedRecord(kept, secrets),
      guardrails: storedRows(kept, secrets),
    };
  }
}
