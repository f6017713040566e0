/**
 * Small building blocks every page uses: loading an API answer, showing an error, a status badge,
 * a JSON block, a copy button. Values are rendered as text nodes, so nothing from the API is ever
 * parsed as HTML.
 */
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiError, call } from "./api";

/** The state of a load: its data, error, whether it runs, and a way to run it again. */
export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/** Runs `load` when `deps` change and keeps its answer. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** The message of any error, as text. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return `${error.status} ${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** An error box, or nothing. */
export function ErrorBox({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return (
    <p class="error" role="alert">
      {messageOf(error)}
    </p>
  );
}

/** A load's error or a loading line, else the children for its data. */
export function Await<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (loaded.error !== undefined) return <ErrorBox error={loaded.error} />;
  if (loaded.data === undefined) return <p class="muted">Loading…</p>;
  return <>{children(loaded.data)}</>;
}

/** A response status, with 246 and 446 marked as guardrail outcomes. */
export function StatusBadge({ status }: { status: number }) {
  const kind = status === 446 ? "deny" : status === 246 ? "warn" : status >= 400 ? "fail" : "ok";
  const title = status === 446 ? "guardrail denied" : status === 246 ? "guardrail failed, request processed" : undefined;
  return (
    <span class={`badge ${kind}`} title={title} data-status={status}>
      {status}
    </span>
  );
}

/** What the admin API says of a record the gateway's config file seeds (server/admin/file-managed.ts). */
export interface FileManaged {
  managed_by?: "file";
  managed_file?: string;
}

/** Marks a record the config file manages: the gateway refuses edits here, the file is where it changes. */
export function FileBadge({ record }: { record: FileManaged }) {
  if (record.managed_by !== "file") return null;
  return (
    <span
      class="badge file"
      data-managed-file={record.managed_file}
      title={`Managed by ${record.managed_file}: change it there, then reload (guardgate reload)`}
    >
      from config file
    </span>
  );
}

/** A pass / fail / error mark. */
export function Verdict({ outcome }: { outcome: "passed" | "failed" | "errored" | boolean }) {
  const word = outcome === true ? "passed" : outcome === false ? "failed" : outcome;
  return <span class={`verdict ${word}`}>{word}</span>;
}

/** Pretty JSON as text. */
export function Json({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}

/** A button that copies `text`. */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="small"
      onClick={() =>
        navigator.clipboard.writeText(text).then(
          () => setDone(true),
          () => setDone(false),
        )
      }
    >
      {done ? "Copied" : label}
    </button>
  );
}

/** A page title with optional actions on its right. */
export function PageHead({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="page-head">
      <h1>{title}</h1>
      <div class="actions">{children}</div>
    </div>
  );
}

/** A list as a table: its column heads and a row per item, or a line saying the list is empty. */
export function ListTable<T>({
  items,
  empty,
  heads,
  class: className,
  row,
}: {
  items: T[];
  empty: string;
  /** The column heads; "" for a column without one (its actions). */
  heads: string[];
  class?: string;
  row: (item: T) => ComponentChildren;
}) {
  if (items.length === 0) return <p class="muted">{empty}</p>;
  return (
    <div class="table-wrap">
      <table class={className}>
        <thead>
          <tr>{heads.map((head, i) => (head ? <th key={i}>{head}</th> : <th key={i} />))}</tr>
        </thead>
        <tbody>{items.map(row)}</tbody>
      </table>
    </div>
  );
}

/** Milliseconds, rounded for reading. */
export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined) return "–";
  return value < 10 ? `${value.toFixed(2)} ms` : `${Math.round(value)} ms`;
}

/** A timestamp in the reader's locale. */
export function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** A button that deletes the record at `path` (an admin API path) after asking, then reports. */
export function DeleteButton({
  what,
  path,
  onDeleted,
  onError,
  label = "Delete",
}: {
  what: string;
  path: string;
  onDeleted(): void;
  onError(error: unknown): void;
  label?: string;
}) {
  return (
    <button
      type="button"
      class="small danger"
      onClick={async () => {
        if (!confirm(`${label} ${what}?`)) return;
        try {
          await call("DELETE", `/admin/v1${path}`);
          onDeleted();
        } catch (failure) {
          onError(failure);
        }
      }}
    >
      {label}
    </button>
  );
}
