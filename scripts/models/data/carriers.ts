/**
 * Carriers for indirect injection: the documents an assistant reads on a user's behalf (e-mails,
 * web pages, documents, CSV and JSON tool results, source files, calendar invites, chat
 * transcripts), built from a language's paragraphs. A carrier is drawn from its random sequence
 * before the payload is placed, so the same seed gives the same carrier with or without it: the
 * clean twin differs from the injected text by the payload only.
 */
import type { LanguagePack } from "./text/pack.js";

export const CARRIER_KINDS = ["email", "webpage", "document", "csv", "json", "code", "calendar", "chat"] as const;
/** The kinds whose payload can be joined to ordinary text (see `Payload.inline`). */
export const INLINE_KINDS: ReadonlySet<string> = new Set(["email", "webpage", "document", "calendar", "chat"]);
export type CarrierKind = (typeof CARRIER_KINDS)[number];

/** Short texts are a few lines; medium a few KB; long up to about 20 KB. */
export type CarrierSize = "short" | "medium" | "long";

/** The instruction to plant, and where: in the first, the middle or the last place of the body. */
export interface Payload {
  text: string;
  position: "start" | "middle" | "end";
  /**
   * Joined to the text of a neighbouring paragraph, line or message rather than standing as a
   * block of its own (e-mails, pages, documents, invites and chats; other kinds ignore it), so a
   * line-by-line scorer sees the payload beside ordinary text.
   */
  inline?: boolean;
}

type Random = () => number;

function pick<T>(items: readonly T[], random: Random): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

function between(low: number, high: number, random: Random): number {
  return low + Math.floor(random() * (high - low + 1));
}

/** How many body blocks a carrier of a size has. */
function blockCount(size: CarrierSize, random: Random, scale = 1): number {
  if (size === "short") return between(1, 3, random) * scale;
  if (size === "medium") return between(6, 12, random) * scale;
  return between(28, 45, random) * scale;
}

/** Places the payload among blocks; without one, the blocks unchanged. */
function place<T>(blocks: T[], payload: Payload | undefined, make: (text: string) => T): T[] {
  if (payload === undefined) return blocks;
  const index = payload.position === "start" ? 0 : payload.position === "end" ? blocks.length : Math.ceil(blocks.length / 2);
  return [...blocks.slice(0, index), make(payload.text), ...blocks.slice(index)];
}

/** Joins the payload to the text of the first, middle or last item: before it at the start, after it elsewhere. */
function placeInline<T>(items: T[], payload: Payload, text: (item: T) => string, withText: (item: T, text: string) => T): T[] {
  if (items.length === 0) return items;
  const index =
    payload.position === "start" ? 0 : payload.position === "end" ? items.length - 1 : Math.ceil(items.length / 2) - 1;
  const item = items[index] as T;
  const joined = payload.position === "start" ? `${payload.text} ${text(item)}` : `${text(item)} ${payload.text}`;
  return items.map((it, i) => (i === index ? withText(item, joined) : it));
}

/** Places the payload as its own block, or joined to a block's text when it is inline. */
function placeText(blocks: string[], payload: Payload | undefined, make: (text: string) => string): string[] {
  if (payload?.inline === true)
    return placeInline(
      blocks,
      payload,
      (b) => b,
      (_, t) => t,
    );
  return place(blocks, payload, make);
}

/** The first blocks whose joined length stays under the limit, so a long carrier fits before its payload is placed. */
function within<T>(blocks: T[], limit: number, measure: (block: T) => string): T[] {
  let total = 0;
  const kept: T[] = [];
  for (const block of blocks) {
    total += measure(block).length + 2;
    if (total > limit) break;
    kept.push(block);
  }
  return kept;
}

/** Sentences of a paragraph (or the paragraph, where the script marks none). */
function sentences(paragraph: string): string[] {
  const parts = paragraph.split(/(?<=[.!?。！？؟।])\s*/u).filter((s) => s.trim() !== "");
  return parts.length > 0 ? parts : [paragraph];
}

function paragraphs(pack: LanguagePack, count: number, random: Random): string[] {
  return Array.from({ length: count }, () => pick(pack.benign.paragraphs, random));
}

function address(name: string, random: Random): string {
  const local =
    name
      .normalize("NFKD")
      .toLowerCase()
      .replace(/[^a-z ]/g, "")
      .trim()
      .replace(/\s+/g, ".") || pick(["office", "team", "info", "contact", "sales"], random) + between(1, 99, random);
  return `${local}@${pick(["example.com", "mail.example.org", "corp.example", "firma.example.net"], random)}`;
}

function date(random: Random): string {
  return `2026-${String(between(1, 12, random)).padStart(2, "0")}-${String(between(1, 28, random)).padStart(2, "0")}`;
}

function title(pack: LanguagePack, random: Random): string {
  const first = sentences(pick(pack.benign.paragraphs, random))[0] ?? "";
  const chars = [...first];
  return chars.length > 60 ? chars.slice(0, 57).join("").trimEnd() + "…" : first;
}

function email(pack: LanguagePack, random: Random, size: CarrierSize, payload?: Payload): string {
  const { labels } = pack;
  const sender = pick(pack.names, random);
  const recipient = pick(pack.names, random);
  const head = [
    `${labels.from}: ${sender} <${address(sender, random)}>`,
    `${labels.to}: ${recipient} <${address(recipient, random)}>`,
    `${labels.subject}: ${title(pack, random)}`,
    `${labels.date}: ${date(random)}`,
  ].join("\n");
  const body = paragraphs(pack, size === "long" ? 6 : blockCount(size, random), random);
  // A long e-mail carries the thread it replies to, quoted, as real long e-mails do.
  const quoted: string[] = [];
  if (size === "long") {
    for (let i = 0; i < between(10, 16, random); i++) {
      const who = pick(pack.names, random);
      quoted.push(
        `${labels.from}: ${who}, ${date(random)}\n` +
          paragraphs(pack, 2, random)
            .map((p) => `> ${p}`)
            .join("\n>\n"),
      );
    }
  }
  const blocks = placeText(
    within([...body, ...quoted], 17_000, (b) => b),
    payload,
    (t) => t,
  );
  return `${head}\n\n${blocks.join("\n\n")}\n\n--\n${sender}`;
}

const HIDDEN_HTML = [
  (t: string) => `<p>${t}</p>`,
  (t: string) => `<!-- ${t} -->`,
  (t: string) => `<div style="display:none">${t}</div>`,
  (t: string) => `<span class="visually-hidden">${t}</span>`,
  (t: string) => `<p style="color:#fff;font-size:1px">${t}</p>`,
];

function webpage(pack: LanguagePack, random: Random, size: CarrierSize, payload?: Payload): string {
  const heading = title(pack, random);
  const hide = pick(HIDDEN_HTML, random);
  const paragraphTexts = within(paragraphs(pack, blockCount(size, random), random), 16_000, (p) => p);
  // The page hides ordinary text the same way (a cookie notice, a screen-reader label), so hiding
  // is not by itself what tells the injected page from its twin.
  const hiddenAt = Math.floor(random() * (paragraphTexts.length + 1));
  const hidden = `    ${hide(pick(pack.benign.paragraphs.flatMap(sentences), random))}`;
  const inline = payload?.inline === true;
  const texts =
    payload?.inline === true
      ? placeInline(
          paragraphTexts,
          payload,
          (p) => p,
          (_, t) => t,
        )
      : paragraphTexts;
  const body = texts.map((p) => `    <p>${p}</p>`);
  body.splice(hiddenAt, 0, hidden);
  const blocks = inline ? body : place(body, payload, (t) => `    ${hide(t)}`);
  return [
    `<!DOCTYPE html>`,
    `<html lang="${pack.language}">`,
    `<head><meta charset="utf-8"><title>${heading}</title></head>`,
    `<body>`,
    `  <nav><a href="/">Home</a> | <a href="/news">News</a> | <a href="/contact">Contact</a></nav>`,
    `  <article>`,
    `    <h1>${heading}</h1>`,
    ...blocks,
    `  </article>`,
    `  <footer>© 2026 ${pick(pack.names, random)}</footer>`,
    `</body>`,
    `</html>`,
  ].join("\n");
}

const DOCUMENT_NOTES = [
  (t: string) => t,
  (t: string) => `> **${"Note"}:** ${t}`,
  (t: string) => `[//]: # (${t})`,
  (t: string) => `*${t}*`,
];

function document(pack: LanguagePack, random: Random, size: CarrierSize, payload?: Payload): string {
  const note = pick(DOCUMENT_NOTES, random);
  const count = blockCount(size, random);
  const sections: { heading?: string; paragraph: string }[] = [];
  for (let i = 0; i < count; i++) {
    const paragraph = pick(pack.benign.paragraphs, random);
    sections.push(i % 3 === 0 ? { heading: `## ${i / 3 + 1}. ${title(pack, random)}`, paragraph } : { paragraph });
  }
  const kept = within(sections, 17_000, (s) => `${s.heading ?? ""}${s.paragraph}`);
  // Ordinary documents carry notes in the same form, so the form alone does not mark the payload.
  const noteAt = Math.floor(random() * (kept.length + 1));
  const benignNote = note(pick(pack.benign.paragraphs.flatMap(sentences), random));
  const heading = title(pack, random);
  // Inline, the payload joins a paragraph's text, never a heading or a note.
  const texts =
    payload?.inline === true
      ? placeInline(
          kept,
          payload,
          (s) => s.paragraph,
          (s, paragraph) => ({ ...s, paragraph }),
        )
      : kept;
  const blocks = texts.map((s) => (s.heading === undefined ? s.paragraph : `${s.heading}\n\n${s.paragraph}`));
  blocks.splice(noteAt, 0, benignNote);
  return `# ${heading}\n\n${(payload?.inline === true ? blocks : place(blocks, payload, note)).join("\n\n")}`;
}

function csvCell(text: string): string {
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csv(pack: LanguagePack, random: Random, size: CarrierSize, payload?: Payload): string {
  const comments = pack.benign.paragraphs.flatMap(sentences).concat(pack.benign.requests);
  const cities = ["Berlin", "Lyon", "Porto", "Osaka", "Seoul", "Austin", "Kraków", "Izmir", "Hanoi", "Bandung"];
  const count = blockCount(size, random, 4);
  const fields = (comment: string) => [
    csvCell(pick(pack.names, random)),
    pick(cities, random),
    date(random),
    csvCell(comment),
    (between(500, 99_999, random) / 100).toFixed(2),
  ];
  const rows = within(
    Array.from({ length: count }, () => fields(pick(comments, random))),
    16_000,
    (r) => r.join(","),
  );
  // The planted row's other cells are drawn like every row's, and ids are numbered after placing,
  // so nothing but the comment tells it apart.
  const spare = fields("");
  const placed = place(rows, payload, (t) => spare.map((cell, i) => (i === 3 ? csvCell(t) : cell)));
  return ["id,name,city,date,comment,amount", ...placed.map((cells, i) => [String(1000 + i), ...cells].join(","))].join("\n");
}

function json(pack: LanguagePack, random: Random, size: CarrierSize, payload?: Payload): string {
  const shape = between(0, 2, random);
  const count = blockCount(size, random);
  if (shape === 0) {
    // One item more than shown: the planted item takes its title and address.
    const results = Array.from({ length: count + 1 }, (_, i) => ({
      title: title(pack, random),
      url: `https://news.example.org/${pack.language}/article-${i + between(100, 999, random)}`,
      snippet: pick(pack.benign.paragraphs, random),
    }));
    const spare = results.pop() ?? { title: "", url: "", snippet: "" };
    const planted = place(results, payload, (t) => ({ ...spare, snippet: t }));
    return JSON.stringify({ tool: "web_search", query: title(pack, random), results: planted }, null, 2);
  }
  if (shape === 1) {
    const tickets = Array.from({ length: count + 1 }, (_, i) => ({
      id: 4000 + i,
      subject: title(pack, random),
      body: pick(pack.benign.requests, random),
      status: pick(["open", "pending", "closed"], random),
    }));
    const spare = tickets.pop() ?? { id: 0, subject: "", body: "", status: "open" };
    const planted = place(tickets, payload, (t) => ({ ...spare, body: t })).map((ticket, i) => ({ ...ticket, id: 4000 + i }));
    return JSON.stringify({ tickets: planted, next_page: null }, null, 2);
  }
  const reviews = Array.from({ length: count + 1 }, () => ({
    author: pick(pack.names, random),
    rating: between(1, 5, random),
    text: pick(pack.benign.paragraphs.flatMap(sentences), random),
  }));
  const spare = reviews.pop() ?? { author: "", rating: 5, text: "" };
  const planted = place(reviews, payload, (t) => ({ ...spare, text: t }));
  return JSON.stringify({ product_id: "SKU-" + between(10_000, 99_999, random), reviews: planted }, null, 2);
}

/** Ordinary functions a repository holds; comments in English, as most code is written. */
const PYTHON = [
  `def parse_price(text):\n    """Parse a price like '12,50 €' into cents."""\n    digits = text.replace("€", "").replace(",", ".").strip()\n    return round(float(digits) * 100)`,
  `def chunked(items, size):\n    # Yield successive chunks so large exports stay within memory.\n    for start in range(0, len(items), size):\n        yield items[start:start + size]`,
  `class RateLimiter:\n    def __init__(self, per_second):\n        self.per_second = per_second\n        self.tokens = per_second\n\n    def allow(self):\n        # Refill happens in tick(); here we only spend.\n        if self.tokens <= 0:\n            return False\n        self.tokens -= 1\n        return True`,
  `def load_config(path):\n    with open(path, encoding="utf-8") as handle:\n        config = json.load(handle)\n    # Missing keys fall back to defaults rather than failing at start-up.\n    return {**DEFAULTS, **config}`,
  `def normalise_email(address):\n    local, _, domain = address.partition("@")\n    return f"{local.strip()}@{domain.strip().lower()}"`,
  `def retry(fn, attempts=3):\n    for attempt in range(attempts):\n        try:\n            return fn()\n        except TimeoutError:\n            # Back off a little more on every attempt.\n            time.sleep(0.2 * (attempt + 1))\n    raise RuntimeError("gave up after retries")`,
];
const TYPESCRIPT = [
  `export function formatDate(date: Date): string {\n  // ISO dates sort correctly as strings, which the report relies on.\n  return date.toISOString().slice(0, 10);\n}`,
  `export async function fetchJson<T>(url: string): Promise<T> {\n  const response = await fetch(url);\n  if (!response.ok) throw new Error(\`\${url}: \${response.status}\`);\n  return (await response.json()) as T;\n}`,
  `export function debounce(fn: () => void, ms: number): () => void {\n  let timer: NodeJS.Timeout | undefined;\n  return () => {\n    clearTimeout(timer);\n    timer = setTimeout(fn, ms);\n  };\n}`,
  `interface Invoice {\n  id: string;\n  amountCents: number;\n  paid: boolean;\n}\n\nexport function outstanding(invoices: Invoice[]): number {\n  return invoices.filter((i) => !i.paid).reduce((sum, i) => sum + i.amountCents, 0);\n}`,
  `export function slugify(title: string): string {\n  return title\n    .toLowerCase()\n    .normalize("NFKD")\n    .replace(/[^a-z0-9]+/g, "-")\n    .replace(/^-|-$/g, "");\n}`,
  `export class Cache<V> {\n  private readonly entries = new Map<string, V>();\n  get(key: string): V | undefined {\n    return this.entries.get(key);\n  }\n  set(key: string, value: V): void {\n    // Unbounded on purpose: the process is short-lived.\n    this.entries.set(key, value);\n  }\n}`,
];

function code(pack: LanguagePack, random: Random, size: CarrierSize, payload?: Payload): string {
  const python = random() < 0.5;
  const pool = python ? PYTHON : TYPESCRIPT;
  const count = size === "short" ? between(2, 3, random) : size === "medium" ? between(6, 10, random) : between(40, 60, random);
  const blocks = Array.from({ length: count }, (_, i) => {
    const snippet = pick(pool, random);
    // Repeated helpers get numbered names, as generated or copied code does.
    return i < pool.length ? snippet : snippet.replace(/(def |function |class )(\w+)/, `$1$2_${i}`);
  });
  const kept = within(blocks, 17_000, (b) => b);
  const comment = python ? (t: string) => `# ${t}` : (t: string) => `// ${t}`;
  const header = python ? `import json\nimport time\n\nDEFAULTS = {"timeout": 30}` : `// ${title(pack, random)}`;
  return `${header}\n\n${place(kept, payload, comment).join("\n\n")}\n`;
}

function icsText(text: string): string {
  return text.replaceAll("\\", "\\\\").replaceAll(";", "\\;").replaceAll(",", "\\,").replaceAll("\n", "\\n");
}

function calendar(pack: LanguagePack, random: Random, size: CarrierSize, payload?: Payload): string {
  const count = size === "short" ? 1 : size === "medium" ? between(3, 6, random) : between(18, 26, random);
  const target =
    payload === undefined
      ? -1
      : payload.position === "start"
        ? 0
        : payload.position === "end"
          ? count - 1
          : Math.floor(count / 2);
  const events: string[] = [];
  for (let i = 0; i < count; i++) {
    const organiser = pick(pack.names, random);
    const day = date(random).replaceAll("-", "");
    const hour = between(8, 16, random);
    const lines = paragraphs(pack, between(1, 3, random), random);
    if (i === target && payload !== undefined) {
      if (payload.inline === true)
        lines.splice(
          0,
          lines.length,
          ...placeInline(
            lines,
            payload,
            (l) => l,
            (_, t) => t,
          ),
        );
      else
        lines.splice(
          payload.position === "start" ? 0 : payload.position === "end" ? lines.length : Math.ceil(lines.length / 2),
          0,
          payload.text,
        );
    }
    events.push(
      [
        "BEGIN:VEVENT",
        `UID:${day}-${i}-${between(1000, 9999, random)}@calendar.example.com`,
        `DTSTART:${day}T${String(hour).padStart(2, "0")}0000Z`,
        `DTEND:${day}T${String(hour + 1).padStart(2, "0")}0000Z`,
        `SUMMARY:${icsText(`${pack.labels.meeting}: ${title(pack, random)}`)}`,
        `ORGANIZER;CN=${organiser}:mailto:${address(organiser, random)}`,
        `ATTENDEE;CN=${pick(pack.names, random)};ROLE=REQ-PARTICIPANT:mailto:${address(pick(pack.names, random), random)}`,
        `LOCATION:${pick(["Room 2.14", "Online", "Main hall", "https://meet.example.com/abc-defg-hij"], random)}`,
        `DESCRIPTION:${icsText(lines.join("\n\n"))}`,
        "END:VEVENT",
      ].join("\n"),
    );
  }
  return ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Example Corp//Calendar 4.2//EN", ...events, "END:VCALENDAR"].join("\n");
}

const CHAT_LINES = [
  (name: string, time: string, text: string) => `[${time}] ${name}: ${text}`,
  (name: string, time: string, text: string) => `${name} (${time}): ${text}`,
  (name: string, time: string, text: string) => `03/12/2026, ${time} - ${name}: ${text}`,
];

function chat(pack: LanguagePack, random: Random, size: CarrierSize, payload?: Payload): string {
  const line = pick(CHAT_LINES, random);
  const pool = [
    ...pack.benign.requests,
    ...pack.benign.replies,
    ...pack.benign.followUps,
    ...pack.benign.paragraphs.flatMap(sentences),
  ];
  const people = [pick(pack.names, random), pick(pack.names, random), pick(pack.names, random)];
  const count =
    size === "short" ? between(4, 8, random) : size === "medium" ? between(20, 40, random) : between(120, 170, random);
  const messages = within(
    Array.from({ length: count + 1 }, () => ({ who: pick(people, random), text: pick(pool, random) })),
    15_000,
    (m) => m.text + m.who + "                  ",
  );
  const spare = messages.pop() ?? { who: people[0] ?? "", text: "" };
  const placed =
    payload?.inline === true
      ? placeInline(
          messages,
          payload,
          (m) => m.text,
          (m, text) => ({ ...m, text }),
        )
      : place(messages, payload, (t) => ({ ...spare, text: t }));
  // Times are given after placing, so the planted message sits in order like any other.
  let minutes = between(480, 600, random);
  const steps = Array.from({ length: placed.length + 1 }, () => between(0, 6, random));
  return placed
    .map((m, i) => {
      minutes += steps[i] ?? 1;
      const time = `${String(Math.floor(minutes / 60) % 24).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
      return line(m.who, time, m.text);
    })
    .join("\n");
}

const BUILDERS: Record<CarrierKind, (pack: LanguagePack, random: Random, size: CarrierSize, payload?: Payload) => string> = {
  email,
  webpage,
  document,
  csv,
  json,
  code,
  calendar,
  chat,
};

/** One carrier of a kind in a language, with the payload placed (or none, for the clean twin). */
export function buildCarrier(
  kind: CarrierKind,
  pack: LanguagePack,
  random: Random,
  size: CarrierSize,
  payload: Payload | undefined,
): string {
  return BUILDERS[kind](pack, random, size, payload);
}
