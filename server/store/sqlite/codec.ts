/**
 * Converts records to SQLite rows and back from a column spec: booleans as 0/1, objects as JSON
 * text. One spec per table keeps the mapping in one readable place.
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

  /** Named parameters for an INSERT of the whole record. */
  encode(record: T): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    for (const column of this.columns) row[column] = this.encodeField(column, (record as Record<string, unknown>)[column]);
    return row;
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

  /** `INSERT INTO table (cols) VALUES (@cols)`. */
  insertSql(table: string): string {
    return `INSERT INTO ${table} (${this.columns.join(", ")}) VALUES (${this.columns.map((c) => `@${c}`).join(", ")})`;
  }

  /** `INSERT INTO table (cols) VALUES (?, …)`, for `encodeValues`. */
  positionalInsertSql(table: string): string {
    return `INSERT INTO ${table} (${this.columns.join(", ")}) VALUES (${this.columns.map(() => "?").join(", ")})`;
  }

  /** A `SET a = @a, b = @b` clause and its parameters for the fields a patch gives. */
  setClause(patch: Record<string, unknown>): { sql: string; params: Record<string, unknown> } {
    const fields = Object.keys(patch).filter((field) => field in this.spec && patch[field] !== undefined);
    const params: Record<string, unknown> = {};
    for (const field of fields) params[field] = this.encodeField(field, patch[field]);
    return { sql: fields.map((f) => `${f} = @${f}`).join(", "), params };
  }
}
