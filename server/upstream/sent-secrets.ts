/**
 * The credentials one upstream call carries (an api key, a bearer token the gateway exchanged at
 * Microsoft Entra or Google, a SigV4 signature, a key in the query) are cut out of everything its
 * answer brings back: a provider may quote what it refused in an error body or in a stream's
 * error event, and from there it would reach the client and the log. Only the few secrets of the
 * call are searched for, and a stream is scanned as it passes, holding back only the bytes at the
 * end of a read that could begin a secret the next read completes.
 */
import { isCredentialHeader } from "../../core/internal.js";

/** What replaces a secret. */
export const SCRUBBED = "[REDACTED]";
const SCRUBBED_BYTES = Buffer.from(SCRUBBED);
const EMPTY = Buffer.alloc(0);
/** Shorter values are not secrets worth the false matches (a scheme name, a version). */
const MIN_SECRET = 8;

/** `Scheme credentials`: the credentials part of an Authorization value. */
const SCHEME = /^[A-Za-z][\w-]*\s+(\S.*)$/;
/** The signature of an AWS SigV4 Authorization value. */
const SIGV4_SIGNATURE = /Signature=([0-9a-fA-F]+)/;
/** Query parameters that carry a credential besides those named like a credential header. */
const QUERY_CREDENTIALS: ReadonlySet<string> = new Set(["key", "sig"]);

function add(into: Set<string>, value: string | undefined): void {
  if (value !== undefined && value.length >= MIN_SECRET) into.add(value);
}

/** The credentials of an upstream request: its credential headers' values and the credentials inside them, and credential query parameters. */
export function sentSecrets(headers: Record<string, string>, url: string): string[] {
  const secrets = new Set<string>();
  for (const [name, raw] of Object.entries(headers)) {
    if (!isCredentialHeader(name) || typeof raw !== "string") continue;
    const value = raw.trim();
    add(secrets, value);
    const credentials = SCHEME.exec(value)?.[1];
    const signature = SIGV4_SIGNATURE.exec(value)?.[1];
    if (signature !== undefined) add(secrets, signature);
    else add(secrets, credentials);
  }
  const query = url.indexOf("?");
  if (query >= 0) {
    for (const [name, value] of new URLSearchParams(url.slice(query + 1))) {
      if (QUERY_CREDENTIALS.has(name.toLowerCase()) || isCredentialHeader(name)) add(secrets, value);
    }
  }
  return [...secrets];
}

/** Cuts a call's secrets out of texts and byte streams of its answer. */
export class SecretScrubber {
  /** Each secret as sent and as a JSON string holds it, longest first so a secret holding another is cut whole. */
  readonly #texts: string[];
  readonly #needles: Buffer[];

  constructor(secrets: readonly string[]) {
    const forms = new Set<string>();
    for (const secret of secrets) {
      if (secret.length < MIN_SECRET) continue;
      forms.add(secret);
      forms.add(JSON.stringify(secret).slice(1, -1));
    }
    this.#texts = [...forms].sort((a, b) => b.length - a.length);
    this.#needles = this.#texts.map((text) => Buffer.from(text));
  }

  /** `text` with every secret replaced. */
  text(text: string): string {
    for (const secret of this.#texts) if (text.includes(secret)) text = text.replaceAll(secret, SCRUBBED);
    return text;
  }

  /**
   * The bytes of `source` with every secret replaced, also one split across reads. The bytes at
   * the end of a read that begin a secret wait for the next read (or the end); every other byte
   * goes on at once, so an event's end is never held back by this.
   */
  async *stream(source: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
    let held = EMPTY;
    for await (const chunk of source) {
      const data = this.#cut(held.length ? Buffer.concat([held, chunk]) : chunk);
      const at = this.#heldFrom(data);
      held = at < data.length ? Buffer.from(data.subarray(at)) : EMPTY;
      if (at > 0) yield at === data.length ? data : data.subarray(0, at);
    }
    // The answer ended inside what may be a secret: a long enough start of one is still secret.
    if (held.length >= MIN_SECRET) yield SCRUBBED_BYTES;
    else if (held.length) yield held;
  }

  #cut(data: Buffer): Buffer {
    for (const needle of this.#needles) {
      let at = data.indexOf(needle);
      if (at < 0) continue;
      const parts: Buffer[] = [];
      let from = 0;
      while (at >= 0) {
        parts.push(data.subarray(from, at), SCRUBBED_BYTES);
        from = at + needle.length;
        at = data.indexOf(needle, from);
      }
      parts.push(data.subarray(from));
      data = Buffer.concat(parts);
    }
    return data;
  }

  /** Where the end of `data` begins a secret it does not complete; `data.length` when it does not. */
  #heldFrom(data: Buffer): number {
    let held = data.length;
    for (const needle of this.#needles) {
      const first = needle[0] as number;
      // Only a start within the last needle-length bytes can leave the secret unfinished.
      for (
        let at = data.indexOf(first, Math.max(0, data.length - needle.length + 1));
        at >= 0 && at < held;
        at = data.indexOf(first, at + 1)
      ) {
        if (data.subarray(at).equals(needle.subarray(0, data.length - at))) {
          held = at;
          break;
        }
      }
    }
    return held;
  }
}

/** Scrubbers by their secrets: a provider's calls carry the same few, and a scrubber holds no state of a call. */
const scrubbers = new Map<string, SecretScrubber>();
/** Bounded: callers' own credentials, forwarded, could otherwise grow it without end. */
const SCRUBBERS_MAX = 256;

/** The scrubber of a call's secrets (`sentSecrets`), made once per set of secrets; undefined when there are none. */
export function scrubberFor(secrets: readonly string[]): SecretScrubber | undefined {
  if (!secrets.length) return undefined;
  // A NUL never occurs in a header value or a URL, so the joined secrets name the set.
  const key = secrets.length === 1 ? (secrets[0] as string) : secrets.join("\0");
  let scrubber = scrubbers.get(key);
  if (!scrubber) {
    if (scrubbers.size >= SCRUBBERS_MAX) scrubbers.clear();
    scrubbers.set(key, (scrubber = new SecretScrubber(secrets)));
  }
  return scrubber;
}
