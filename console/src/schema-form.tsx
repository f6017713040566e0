/**
 * A form generated from a JSON Schema: the check editor's parameters and every create/edit form
 * of the admin pages come from the schemas the gateway publishes (`GET /admin/v1/checks`, the
 * OpenAPI document), so a new check or field needs no console code. Errors are shown at the field
 * whose path they name.
 */
import { useEffect, useState } from "preact/hooks";
import { joinPath, type Schema, typeOf, variants } from "./schema";

/** Props of a generated form. */
export interface SchemaFormProps {
  schema: Schema;
  value: unknown;
  onChange(value: unknown): void;
  /** The path of this value in the body the gateway checks, e.g. `checks[0].parameters`. */
  path: string;
  /** Problems by field path. */
  errors: Record<string, string>;
  /** Write-only: the field's value is a credential the API never returns. */
  secret?: boolean;
}

/** Field names whose values are credentials: rendered as password fields. */
const SECRET_NAMES = new Set(["credentials", "api_key", "headers"]);

function FieldError({ errors, path }: { errors: Record<string, string>; path: string }) {
  const message = errors[path];
  if (!message) return null;
  return (
    <span class="field-error" role="alert" data-error-for={path}>
      {message}
    </span>
  );
}

function label(schema: Schema, name: string): string {
  return schema.title ?? name;
}

/** A textarea holding JSON: parsed as typed, kept as text while it does not parse. */
function JsonField({ value, onChange, path, errors, secret }: SchemaFormProps) {
  const [text, setText] = useState(value === undefined ? "" : JSON.stringify(value, null, 2));
  const [bad, setBad] = useState<string | null>(null);
  useEffect(() => {
    if (value === undefined && !secret) setText("");
  }, [value, secret]);
  return (
    <>
      <textarea
        class={secret ? "json secret" : "json"}
        rows={4}
        spellcheck={false}
        autocomplete="off"
        name={path}
        value={text}
        placeholder={secret ? "write-only: never shown again" : "JSON"}
        onInput={(event) => {
          const next = (event.target as HTMLTextAreaElement).value;
          setText(next);
          if (!next.trim()) {
            setBad(null);
            onChange(undefined);
            return;
          }
          try {
            onChange(JSON.parse(next));
            setBad(null);
          } catch {
            setBad("is not valid JSON");
          }
        }}
      />
      {bad ? <span class="field-error">{bad}</span> : <FieldError errors={errors} path={path} />}
    </>
  );
}

function numberOrUndefined(text: string, integer: boolean): number | undefined {
  if (text.trim() === "") return undefined;
  const value = Number(text);
  return integer && Number.isInteger(value) ? value : Number.isNaN(value) ? undefined : value;
}

/** The input of one scalar or list value. */
function Input(props: SchemaFormProps & { required: boolean }) {
  const { schema, value, onChange, path, secret } = props;
  const type = typeOf(schema);
  if (schema.enum) {
    return (
      <select
        name={path}
        value={value === undefined ? "" : JSON.stringify(value)}
        onChange={(event) => {
          const text = (event.target as HTMLSelectElement).value;
          onChange(text === "" ? undefined : JSON.parse(text));
        }}
      >
        <option value="">{schema.default !== undefined ? `default (${String(schema.default)})` : "—"}</option>
        {schema.enum.map((option) => (
          <option key={JSON.stringify(option)} value={JSON.stringify(option)}>
            {String(option)}
          </option>
        ))}
      </select>
    );
  }
  if (type === "boolean") {
    const checked = (value as boolean | undefined) ?? (schema.default as boolean | undefined) ?? false;
    return (
      <input
        type="checkbox"
        name={path}
        checked={checked}
        onChange={(event) => onChange((event.target as HTMLInputElement).checked)}
      />
    );
  }
  if (type === "integer" || type === "number") {
    return (
      <input
        type="number"
        name={path}
        step={type === "integer" ? 1 : "any"}
        value={value === undefined ? "" : String(value)}
        placeholder={schema.default !== undefined ? `default ${String(schema.default)}` : ""}
        onInput={(event) => onChange(numberOrUndefined((event.target as HTMLInputElement).value, type === "integer"))}
      />
    );
  }
  if (type === "array" && schema.items && ["string", "number", "integer"].includes(typeOf(schema.items) ?? "")) {
    const numeric = typeOf(schema.items) !== "string";
    return (
      <textarea
        name={path}
        rows={3}
        placeholder="one per line"
        value={Array.isArray(value) ? value.join("\n") : ""}
        onInput={(event) => {
          const lines = (event.target as HTMLTextAreaElement).value.split("\n");
          const items = lines.filter((line) => line.trim() !== "").map((line) => (numeric ? Number(line) : line));
          onChange(items.length ? items : undefined);
        }}
      />
    );
  }
  if (type === "string") {
    const onInput = (event: Event) => {
      const text = (event.target as HTMLInputElement).value;
      onChange(text === "" ? undefined : text);
    };
    // A credential's field starts empty and is never filled from a record.
    if (secret)
      return (
        <input type="password" name={path} autocomplete="off" placeholder="write-only: never shown again" onInput={onInput} />
      );
    return (
      <input
        type="text"
        name={path}
        autocomplete="off"
        value={(value as string | undefined) ?? ""}
        placeholder={schema.default !== undefined ? `default ${String(schema.default)}` : ""}
        onInput={onInput}
      />
    );
  }
  return <JsonField {...props} />;
}

function variantLabel(schema: Schema): string {
  if (schema.const !== undefined) return String(schema.const);
  if (schema.enum?.length === 1) return String(schema.enum[0]);
  const type = typeOf(schema);
  if (type === "array") return "a list";
  return type ?? "JSON";
}

/** One alternative of several, chosen in a select. */
function Alternatives(props: SchemaFormProps & { options: Schema[]; required: boolean }) {
  const { options, value, onChange, path } = props;
  const fitting = options.findIndex((option) => fits(option, value));
  const [chosen, setChosen] = useState(fitting >= 0 ? fitting : 0);
  const option = options[chosen] ?? options[0]!;
  const single = option.enum?.length === 1 ? option.enum[0] : option.const;
  return (
    <div class="alternatives">
      <select
        aria-label={`${path} form`}
        value={String(chosen)}
        onChange={(event) => {
          const index = Number((event.target as HTMLSelectElement).value);
          setChosen(index);
          const picked = options[index]!;
          const fixed = picked.enum?.length === 1 ? picked.enum[0] : picked.const;
          onChange(fixed);
        }}
      >
        {options.map((o, index) => (
          <option key={index} value={String(index)}>
            {variantLabel(o)}
          </option>
        ))}
      </select>
      {single === undefined && <Value {...props} schema={option} />}
    </div>
  );
}

function fits(schema: Schema, value: unknown): boolean {
  if (value === undefined) return false;
  if (schema.enum) return schema.enum.includes(value);
  const type = typeOf(schema);
  if (type === "array") return Array.isArray(value);
  if (type === "object") return typeof value === "object" && value !== null && !Array.isArray(value);
  return type === undefined || typeof value === (type === "integer" ? "number" : type);
}

/** The editor of one value, whatever its schema. */
function Value(props: SchemaFormProps & { required: boolean }) {
  const { schema } = props;
  const options = variants(schema);
  if (options && options.length > 1) return <Alternatives {...props} options={options} />;
  const only = options?.[0] ? { ...options[0], description: schema.description ?? options[0].description } : schema;
  if (typeOf(only) === "object" && only.properties) return <Fields {...props} schema={only} />;
  return <Input {...props} schema={only} />;
}

/** The fields of an object schema. */
function Fields({ schema, value, onChange, path, errors, secret }: SchemaFormProps) {
  const record = (value ?? {}) as Record<string, unknown>;
  const required = new Set(schema.required ?? []);
  return (
    <div class="fields">
      {Object.entries(schema.properties ?? {}).map(([name, property]) => {
        const fieldPath = joinPath(path, name);
        const isSecret = secret || SECRET_NAMES.has(name);
        const nested = typeOf(property) === "object" && property.properties && !variants(property);
        return (
          <div class={`field${nested ? " nested" : ""}`} key={name} data-path={fieldPath}>
            <label>
              <span class="name">
                {label(property, name)}
                {required.has(name) && <abbr title="required">*</abbr>}
              </span>
              {property.description && <span class="hint">{property.description}</span>}
            </label>
            <Value
              schema={property}
              value={record[name]}
              path={fieldPath}
              errors={errors}
              secret={isSecret}
              required={required.has(name)}
              onChange={(next) => {
                const copy = { ...record };
                if (next === undefined) delete copy[name];
                else copy[name] = next;
                onChange(copy);
              }}
            />
            {!nested && typeOf(property) !== "object" && <FieldError errors={errors} path={fieldPath} />}
          </div>
        );
      })}
      <FieldError errors={errors} path={path} />
    </div>
  );
}

/** A form for `schema`: an object's fields, or a single value's editor. */
export function SchemaForm(props: SchemaFormProps) {
  if (typeOf(props.schema) === "object" && props.schema.properties) return <Fields {...props} />;
  return <Value {...props} required />;
}
