/**
 * Converts request-log records to SQLite rows and back from a column spec: objects as JSON text.
 * The log store's own codec (the records' tables use sql/table.ts): its inserts bind positional
 * parameters to one prepared statement, the cheapest way to write a row per request.
 */

/** How a field is stored. */
export type ColumnKind = "text" | "number" | "bool" | "json";

/** Column kinds by field name; the column is named like the field. */
export type ColumnSpec<T> = { readonly [K in keyof T]?: ColumnKind };

/** Encodes and decodes one table's rows. */
export class RowCodec<T extends object> {
  readonly columns: string[];

  constructor(private readonly spec: ColumnSpec<T>) {
    this.columns = Object.keys(spec);
  }

  /** The value stored for one field. */
  encodeField(field: string, value: unknown): unknown {
    if (value === undefined || value === null) return null;
    switch (this.spec[field as keyof T]) {
      case "bool":
        return value ? 1 : 0;
      case "json":
        return JSON.stringify(value);
      default:
        return value;
    }
  }

  /**
   * Positional parameters in column order, for `positionalInsertSql`: better-sqlite3 binds them
   * several times faster than named ones, which matters on tables written per request.
   */
  encodeValues(record: T): unknown[] {
    return this.columns.map((column) => this.encodeField(column, (record as Record<string, unknown>)[column]));
  }

  /** The record of a row. */
  decode(row: Record<string, unknown>): T {
    const record: Record<string, unknown> = {};
    for (const column of this.columns) {
      const value = row[column];
      switch (this.spec[column as keyof T]) {
        case "bool":
          record[column] = value === 1;
          break;
        case "json":
          record[column] = value === null || value === undefined ? null : JSON.parse(value as string);
          break;
        default:
          record[column] = value ?? null;
      }
    }
    return record as T;
  }

  /** `INSERT INTO table (cols) VALUES (?, …)`, for `encodeValues`. */
  positionalInsertSql(table: string): string {
    return `INSERT INTO ${table} (${this.columns.join(", ")}) VALUES (${this.columns.map(() => "?").join(", ")})`;
  }
}
