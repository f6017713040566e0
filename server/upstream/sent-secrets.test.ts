import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SCRUBBED, SecretScrubber, scrubberFor, sentSecrets } from "./sent-secrets.js";

const KEY = "sk-operator-key-0123456789abcdef";
const TOKEN = "eyJ0eXAiOiJKV1QifQ.cGF5bG9hZA.c2ln";

async function collect(source: AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of source) parts.push(part);
  return Buffer.concat(parts).toString("utf8");
}

async function* reads(bytes: Buffer, cuts: number[]): AsyncIterable<Buffer> {
  let from = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    yield bytes.subarray(from, cut);
    from = cut;
  }
  yield bytes.subarray(from);
}

describe("sentSecrets", () => {
  it("takes credential headers, the credentials after a scheme, a SigV4 signature and credential query parameters", () => {
    const signature = "a".repeat(64);
    const secrets = sentSecrets(
      {
        authorization: `Bearer ${TOKEN}`,
        "api-key": KEY,
        "x-amz-security-token": "FwoGZXIvYXdzEJr//////////wEaDH",
        "content-type": "application/json",
        "anthropic-version": "2023-06-01",
      },
      "https://host/v1beta/models/m:generateContent?key=AIzaSy-query-key-0123&alt=sse",
    );
    expect(secrets).toEqual(
      expect.arrayContaining([`Bearer ${TOKEN}`, TOKEN, KEY, "FwoGZXIvYXdzEJr//////////wEaDH", "AIzaSy-query-key-0123"]),
    );
    expect(secrets).not.toContain("application/json");
    expect(secrets).not.toContain("2023-06-01");
    const sigv4 = `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20240101/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=${signature}`;
    expect(sentSecrets({ authorization: sigv4 }, "https://host/")).toEqual([sigv4, signature]);
  });
});

describe("SecretScrubber", () => {
  it("cuts every secret out of a text, as sent and as a JSON string holds it", () => {
    const scrubber = new SecretScrubber([KEY, 'quote"d-secret-value']);
    expect(scrubber.text(`a ${KEY} b ${KEY}`)).toBe(`a ${SCRUBBED} b ${SCRUBBED}`);
    expect(scrubber.text(JSON.stringify({ m: 'quote"d-secret-value' }))).toBe(`{"m":"${SCRUBBED}"}`);
  });

  it("a stream gives the text's scrubbed form whatever the reads it came in (property, seeded)", async () => {
    const scrubber = new SecretScrubber([KEY, TOKEN]);
    const piece = fc.oneof(
      fc.constantFrom(KEY, TOKEN, KEY.slice(0, 10), TOKEN.slice(0, 5), "e", "s", "\n\n", "data: "),
      fc.string(),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 12 }), async (pieces, rawCuts) => {
        // Ended as an event ends: no secret is left unfinished at the end (that case is below).
        const text = `${pieces.join("")}\n\n`;
        const bytes = Buffer.from(text);
        const cuts = rawCuts.map((cut) => cut % (bytes.length + 1));
        const out = await collect(scrubber.stream(reads(bytes, cuts)));
        expect(out).toBe(scrubber.text(text));
        expect(out).not.toContain(KEY);
        expect(out).not.toContain(TOKEN);
      }),
      { seed: 32, numRuns: 300 },
    );
  });

  it("a secret split over single-byte reads is cut, and bytes that begin no secret are not held back", async () => {
    const scrubber = new SecretScrubber([KEY]);
    const bytes = Buffer.from(`data: {"error":"bad key ${KEY}"}\n\n`);
    const single = await collect(scrubber.stream(reads(bytes, [...bytes.keys()])));
    expect(single).toBe(`data: {"error":"bad key ${SCRUBBED}"}\n\n`);
    // A read ending with an event's end goes on whole at once.
    const out: string[] = [];
    for await (const part of scrubber.stream(reads(Buffer.from("data: one\n\ndata: two\n\n"), [11]))) out.push(part.toString());
    expect(out).toEqual(["data: one\n\n", "data: two\n\n"]);
  });

  it("an answer that ends inside a secret ends without the start of it, when that start is long enough to matter", async () => {
    const scrubber = new SecretScrubber([KEY]);
    expect(await collect(scrubber.stream(reads(Buffer.from(`key ${KEY.slice(0, 20)}`), [6])))).toBe(`key ${SCRUBBED}`);
    expect(await collect(scrubber.stream(reads(Buffer.from("ask"), [])))).toBe("ask");
  });
});

describe("scrubberFor", () => {
  it("makes one scrubber per set of secrets, not one per call, and none for a call without secrets", async () => {
    const first = scrubberFor([KEY, TOKEN]);
    expect(scrubberFor([KEY, TOKEN])).toBe(first);
    expect(scrubberFor([KEY])).not.toBe(first);
    expect(scrubberFor([])).toBeUndefined();
    // Shared by calls whose streams interleave: what one holds back is its own.
    const a = first!.stream(reads(Buffer.from(`one ${KEY} end`), [8]));
    const b = first!.stream(reads(Buffer.from(`two ${TOKEN} end`), [6]));
    expect(await Promise.all([collect(a), collect(b)])).toEqual([`one ${SCRUBBED} end`, `two ${SCRUBBED} end`]);
  });
});
