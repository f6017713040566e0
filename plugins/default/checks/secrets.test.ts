import { describe, expect, it } from "vitest";
import { checkContext, prepareParameters } from "../../../test/support/check-harness.js";
import { cpuMs } from "../../../test/support/cpu-time.js";
import { findSecrets } from "../shared/secret-detection/detect.js";
import { shannonEntropy } from "../shared/secret-detection/entropy.js";
import secrets from "./secrets.js";

/** Parameters as the registry prepares them (schema defaults applied, load-time validation). */
function params(given: Record<string, unknown> = {}) {
  return prepareParameters(secrets, given) as {
    kinds: never[];
    redact: boolean;
    not: boolean;
  };
}

async function run(text: string, given: Record<string, unknown> = {}) {
  return await secrets.run(checkContext({ text, side: "input" }), params(given));
}

function firstFinding(data: Record<string, unknown> | undefined): { start: number; end: number } | undefined {
  return (data?.findings as Array<{ start: number; end: number }> | undefined)?.[0];
}

/** Deterministic pseudo-random strings, so no live-looking key is written into the repository. */
function token(alphabet: string, length: number, seed: number): string {
  let state = seed >>> 0 || 1;
  let out = "";
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out += alphabet[(state >>> 8) % alphabet.length];
  }
  return out;
}

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const ALNUM = UPPER + LOWER + DIGITS;
const B64 = `${ALNUM}+/`;
const URLSAFE = `${ALNUM}_-`;
const HEX = "0123456789abcdef";

function jwt(seed: number): string {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${enc({ alg: "HS256", typ: "JWT" })}.${enc({ sub: `user-${seed}`, iat: 1700000000 + seed })}.${token(URLSAFE, 43, seed)}`;
}

function pem(label: string, seed: number): string {
  const lines = Array.from({ length: 6 }, (_, i) => token(B64, 64, seed + i));
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----`;
}

/** One planted secret of each kind, in a realistic line. */
const PLANTED: Array<{ kind: string; text: string; value: string }> = (() => {
  const v = {
    akia: `AKIA${token(`${UPPER}234567`, 16, 1)}`,
    asia: `ASIA${token(`${UPPER}234567`, 16, 2)}`,
    awsSecret: token(B64, 40, 3),
    azure: `${token(B64, 86, 4)}==`,
    ghp: `ghp_${token(ALNUM, 36, 5)}`,
    gho: `gho_${token(ALNUM, 36, 6)}`,
    pat: `github_pat_${token(ALNUM, 22, 7)}_${token(ALNUM, 59, 8)}`,
    glpat: `glpat-${token(URLSAFE, 20, 9)}`,
    openaiProj: `sk-proj-${token(URLSAFE, 120, 10)}`,
    openaiLegacy: `sk-${token(ALNUM, 48, 11)}`,
    anthropic: `sk-ant-api03-${token(URLSAFE, 93, 12)}AA`,
    slack: `xoxb-${token(DIGITS, 12, 13)}-${token(DIGITS, 13, 14)}-${token(ALNUM, 24, 15)}`,
    slackHook: `https://hooks.slack.com/services/T${token(UPPER + DIGITS, 8, 16)}/B${token(UPPER + DIGITS, 10, 17)}/${token(ALNUM, 24, 18)}`,
    stripeLive: `sk_live_${token(ALNUM, 24, 19)}`,
    stripeRestricted: `rk_live_${token(ALNUM, 24, 20)}`,
    stripePublishable: `pk_live_${token(ALNUM, 24, 21)}`,
    google: `AIza${token(URLSAFE, 35, 22)}`,
    jwt: jwt(23),
    named: token(HEX, 32, 24),
    bare: token(ALNUM, 32, 25),
  };
  return [
    { kind: "AWS_ACCESS_KEY_ID", text: `export AWS_ACCESS_KEY_ID=${v.akia}`, value: v.akia },
    { kind: "AWS_ACCESS_KEY_ID", text: `The session key is ${v.asia}.`, value: v.asia },
    { kind: "AWS_SECRET_ACCESS_KEY", text: `aws_secret_access_key = ${v.awsSecret}`, value: v.awsSecret },
    { kind: "AWS_SECRET_ACCESS_KEY", text: `{"SecretAccessKey": "${v.awsSecret}"}`, value: v.awsSecret },
    {
      kind: "AZURE_STORAGE_KEY",
      text: `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${v.azure};EndpointSuffix=core.windows.net`,
      value: v.azure,
    },
    { kind: "GITHUB_TOKEN", text: `git clone https://${v.ghp}@github.com/acme/app.git`, value: v.ghp },
    { kind: "GITHUB_TOKEN", text: `token: ${v.gho}`, value: v.gho },
    { kind: "GITHUB_TOKEN", text: `GH_TOKEN="${v.pat}"`, value: v.pat },
    {
      kind: "GITLAB_TOKEN",
      text: `curl --header "PRIVATE-TOKEN: ${v.glpat}" https://gitlab.example.com/api/v4/projects`,
      value: v.glpat,
    },
    { kind: "OPENAI_API_KEY", text: `OPENAI_API_KEY=${v.openaiProj}`, value: v.openaiProj },
    { kind: "OPENAI_API_KEY", text: `client = OpenAI(api_key="${v.openaiLegacy}")`, value: v.openaiLegacy },
    { kind: "ANTHROPIC_API_KEY", text: `Here is my key ${v.anthropic} please help`, value: v.anthropic },
    { kind: "SLACK_TOKEN", text: `SLACK_BOT_TOKEN=${v.slack}`, value: v.slack },
    { kind: "SLACK_WEBHOOK", text: `Post to ${v.slackHook} when done.`, value: v.slackHook },
    { kind: "STRIPE_SECRET_KEY", text: `stripe.api_key = '${v.stripeLive}'`, value: v.stripeLive },
    { kind: "STRIPE_SECRET_KEY", text: `Restricted key: ${v.stripeRestricted}`, value: v.stripeRestricted },
    { kind: "STRIPE_PUBLISHABLE_KEY", text: `Stripe(${JSON.stringify(v.stripePublishable)})`, value: v.stripePublishable },
    { kind: "GOOGLE_API_KEY", text: `https://maps.googleapis.com/maps/api/js?key=${v.google}&callback=init`, value: v.google },
    { kind: "JWT", text: `Authorization: Bearer ${v.jwt}`, value: v.jwt },
    { kind: "HIGH_ENTROPY_STRING", text: `DATABASE_PASSWORD: "${v.named}"`, value: v.named },
    { kind: "HIGH_ENTROPY_STRING", text: `Use ${v.bare} to sign in.`, value: v.bare },
  ];
})();

describe("secrets: planted secrets", () => {
  for (const { kind, text, value } of PLANTED) {
    it(`finds ${kind} in: ${text.slice(0, 40)}…`, async () => {
      const outcome = await run(text);
      expect(outcome.verdict).toBe(false);
      expect(outcome.data?.kinds).toEqual([kind]);
      const finding = firstFinding(outcome.data);
      expect(text.slice(finding!.start, finding!.end)).toBe(value);
      expect(JSON.stringify(outcome.data)).not.toContain(value);
    });
  }

  for (const label of ["RSA PRIVATE KEY", "PRIVATE KEY", "OPENSSH PRIVATE KEY", "EC PRIVATE KEY", "PGP PRIVATE KEY BLOCK"]) {
    it(`finds a ${label} block and redacts it whole`, async () => {
      const block = pem(label, label.length);
      const outcome = await run(`Here is the key:\n${block}\nKeep it safe.`, { redact: true });
      expect(outcome.data?.kinds).toEqual(["PRIVATE_KEY"]);
      expect(outcome.transformedText).toBe("Here is the key:\n[SECRET:PRIVATE_KEY]\nKeep it safe.");
    });
  }

  it("finds a private key pasted from JSON with \\n escapes, and one cut off before its END line", async () => {
    const escaped = pem("PRIVATE KEY", 40).replaceAll("\n", "\\n");
    expect((await run(`{"private_key": "${escaped}", "client_email": "x"}`)).data?.kinds).toEqual(["PRIVATE_KEY"]);
    const cut = pem("RSA PRIVATE KEY", 50).split("-----END")[0]!;
    const outcome = await run(`${cut}\nand that is all`, { redact: true });
    expect(outcome.transformedText).toBe("[SECRET:PRIVATE_KEY]\n\nand that is all");
  });

  it("ignores public keys and certificates", async () => {
    const cert = pem("CERTIFICATE", 60);
    const pub = pem("PUBLIC KEY", 70);
    expect((await run(`${cert}\n${pub}`, { kinds: ["PRIVATE_KEY"] })).verdict).toBe(true);
  });

  it("redacts several secrets of several kinds, keeping the text around them", async () => {
    const [a, b, c] = [PLANTED[0]!, PLANTED[5]!, PLANTED[18]!];
    const text = `${a.text}\n${b.text}\n${c.text}`;
    const outcome = await run(text, { redact: true });
    expect(outcome.verdict).toBe(true);
    expect(outcome.data?.redacted).toBe(true);
    expect(outcome.transformedText).toBe(
      `export AWS_ACCESS_KEY_ID=[SECRET:AWS_ACCESS_KEY_ID]\ngit clone https://[SECRET:GITHUB_TOKEN]@github.com/acme/app.git\nAuthorization: Bearer [SECRET:JWT]`,
    );
    expect(outcome.data?.counts).toEqual({ AWS_ACCESS_KEY_ID: 1, GITHUB_TOKEN: 1, JWT: 1 });
    expect(outcome.data?.textExcerpt).not.toContain(a.value);
  });

  it("filters by kinds", async () => {
    const text = `${PLANTED[0]!.text} ${PLANTED[5]!.text}`;
    const outcome = await run(text, { kinds: ["GITHUB_TOKEN"] });
    expect(outcome.data?.kinds).toEqual(["GITHUB_TOKEN"]);
  });

  it("inverts with not, and passes unchanged when redact finds nothing", async () => {
    expect((await run(PLANTED[0]!.text, { not: true })).verdict).toBe(true);
    expect((await run("nothing here", { not: true })).verdict).toBe(false);
    const clean = await run("nothing here", { redact: true });
    expect(clean.verdict).toBe(true);
    expect(clean.transformedText).toBeUndefined();
    expect(clean.data?.redacted).toBe(false);
  });

  it("evaluates empty text: nothing found", async () => {
    const outcome = await run("");
    expect(outcome.verdict).toBe(true);
    expect(outcome.data?.kinds).toEqual([]);
  });

  it("reports positions in UTF-16 units when astral characters come first", async () => {
    const key = PLANTED[0]!.value;
    const text = `😀🎉 key ${key} 😀`;
    const finding = firstFinding((await run(text)).data);
    expect(text.slice(finding!.start, finding!.end)).toBe(key);
  });
});

describe("secrets: parameters", () => {
  it("rejects redact with not, unknown kinds and unknown parameters at load time", () => {
    expect(() => params({ redact: true, not: true })).toThrow(/not.*cannot be combined/);
    expect(() => params({ kinds: ["PASSWORD"] })).toThrow(/kinds/);
    expect(() => params({ redactText: "x" })).toThrow(/not a known parameter/);
  });
});

describe("secrets: realistic negatives", () => {
  const negatives = [
    "The fix landed in commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 last week.",
    "sha256sum: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  hello.txt",
    "Request id 123e4567-e89b-12d3-a456-426614174000 failed with 503.",
    "MD5 (file.iso) = d41d8cd98f00b204e9800998ecf8427e",
    '<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==">',
    "Open /usr/local/lib/python3.12/site-packages/requests/adapters.py at line 501.",
    "The function getUserAccountSettingsById returns a SettingsResponse object.",
    "Run npm install --save-dev @typescript-eslint/eslint-plugin@8.12.0 and retry.",
    "Set primary_key: id and the table name to user_accounts_2024.",
    "The task-abcdefghijklmnopqrstuvwxyz0123456789 queue drained overnight.",
    "See https://github.com/acme/widgets/blob/5d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e/src/index.ts#L10",
    "password = hunter2",
    "Version 2024.11.3-beta+build.5678 ships with Node 20.11.1.",
    "sk-learn is not a package name; use scikit-learn.",
    "The key is AKIA-style but this one is fake: AKIA1234.",
    "ISBN 978-0-13-468599-1 and DOI 10.1145/3385412.3385988 are cited.",
    "Bearer tokens go in the Authorization header.",
    "Call Stripe with pk_test_ keys from the browser only.",
    "Our eyJ-prefixed strings are JWTs; see RFC 7519.",
    "ThisIsAVeryLongCamelCaseIdentifierWithoutDigits is fine.",
    "Paths like src/components/Header/NavigationBar2/index are fine.",
  ];
  for (const text of negatives) {
    it(`finds nothing in: ${text.slice(0, 50)}`, async () => {
      const outcome = await run(text);
      expect(outcome.data?.kinds).toEqual([]);
      expect(outcome.verdict).toBe(true);
    });
  }

  it("reports hex digests and UUIDs when a secret's name announces them", () => {
    const named = [
      'api_key = "d41d8cd98f00b204e9800998ecf8427e"',
      "HEROKU_API_KEY=123e4567-e89b-12d3-a456-426614174000",
      "session_secret: 9f86d081884c7d659a2feaa0c55ad015",
    ];
    for (const text of named) expect(findSecrets(text).map((f) => f.kind)).toEqual(["HIGH_ENTROPY_STRING"]);
  });
});

describe("secrets: entropy", () => {
  it("computes Shannon entropy in bits per character", () => {
    expect(shannonEntropy("")).toBe(0);
    expect(shannonEntropy("aaaa")).toBe(0);
    expect(shannonEntropy("abab")).toBe(1);
    expect(shannonEntropy("abcdefgh")).toBe(3);
  });

  it("reports most random base62 tokens of 24+ characters and no bare identifier-like words", () => {
    let reported = 0;
    for (let seed = 1; seed <= 200; seed++) if (findSecrets(`x ${token(ALNUM, 24 + (seed % 20), seed * 7)} y`).length) reported++;
    expect(reported / 200).toBeGreaterThan(0.9);
    const words = [
      "AbstractSingletonProxyFactoryBean2",
      "HTTPServerRequestHandlerV2Factory",
      "MyComponentTest123Suite",
      "Base64EncodedStringForUser1",
    ];
    for (const w of words) expect(findSecrets(`class ${w} {}`)).toEqual([]);
  });
});

describe("secrets: cost", () => {
  it("finishes on 1 MB of adversarial text within a few seconds", async () => {
    const pieces = [
      "-----BEGIN RSA PRIVATE KEY-----",
      "eyJhbGciOiJIUzI1NiJ9.eyJ",
      "sk-ant-api03-",
      "AKIA",
      "aws_secret_access_key = ",
      `${token(ALNUM, 40, 1)} `,
      "ghp_",
      "=".repeat(30),
      "xoxb-",
      "token: ",
    ];
    let text = "";
    for (let i = 0; text.length < 1_000_000; i++) text += pieces[i % pieces.length];
    const noSpace = "A1b2".repeat(250_000);
    const spent = await cpuMs(async () => {
      await run(text, { redact: true });
      await run(noSpace, { redact: true });
    });
    expect(spent).toBeLessThan(10_000);
  });
});
