import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { eld } from "eld/extrasmall";
import { describe, expect, it } from "vitest";
import { prepareCheck, runCheck } from "../../../test/support/check-harness.js";
import language, { DETECTABLE_LANGUAGES } from "./language.js";

describe("model.language", () => {
  it("knows exactly the languages of the detector's table", () => {
    expect([...DETECTABLE_LANGUAGES].sort()).toEqual(Object.values(eld.info().Languages).sort());
  });

  it("passes an allowed language and reports it with its confidence", async () => {
    const out = await runCheck(language, { allow: ["de", "en"] }, { text: "Wie spät ist es heute Abend in Berlin und München?" });
    expect(out.verdict).toBe(true);
    expect(out.data).toMatchObject({ undetermined: false, denied: [], notAllowed: [] });
    const [top] = out.data?.languages as Array<{ language: string; share: number; confidence: number }>;
    expect(top).toMatchObject({ language: "de", share: 1 });
    expect(top?.confidence).toBeGreaterThan(0.3);
    expect(out.data?.textExcerpt).toBe("Wie spät ist es heute Abend in Berlin und München?");
  });

  it("fails a language outside the allow list, naming it", async () => {
    const out = await runCheck(
      language,
      { allow: ["en"] },
      { text: "¿Dónde está la estación de tren más cercana a la plaza mayor?" },
    );
    expect(out.verdict).toBe(false);
    expect(out.data).toMatchObject({ notAllowed: ["es"] });
    expect(out.data?.explanation).toContain("not allowed: es");
  });

  it("fails a denied language and passes others", async () => {
    const denied = await runCheck(
      language,
      { deny: ["ru"] },
      { text: "Привет! Расскажи мне, пожалуйста, как приготовить борщ дома." },
    );
    expect(denied.verdict).toBe(false);
    expect(denied.data).toMatchObject({ denied: ["ru"] });
    const other = await runCheck(
      language,
      { deny: ["ru"] },
      { text: "Please tell me how to make borscht at home, step by step." },
    );
    expect(other.verdict).toBe(true);
  });

  it("lists each language of a mixed text with its share, and minShare ignores a small one", async () => {
    const english =
      "The quarterly report is attached and the figures look good this time. We expect growth to continue through the next two quarters of the year. " +
      "Our sales team opened three new offices in the spring, and each of them is already profitable. The board will meet again in September to review the plan. ";
    const german =
      "Der Bericht wurde gestern vom Vorstand geprüft und einstimmig angenommen. Die Zahlen für das zweite Quartal liegen deutlich über den Erwartungen. " +
      "Im Herbst sollen zwei weitere Standorte in Süddeutschland eröffnet werden. " +
      "Die Geschäftsführung bedankt sich bei allen Mitarbeiterinnen und Mitarbeitern für ihren großen Einsatz in diesem schwierigen Jahr.";
    const text = english.repeat(8) + german.repeat(4);
    const out = await runCheck(language, { allow: ["en"] }, { text });
    const codes = (out.data?.languages as Array<{ language: string }>).map((l) => l.language);
    expect(codes).toEqual(["en", "de"]);
    expect(out.verdict).toBe(false);
    const lenient = await runCheck(language, { allow: ["en"], minShare: 0.5 }, { text });
    expect(lenient.verdict).toBe(true);
  });

  it("calls short and script-less text undetermined, failing under an allow list and passing under a deny list", async () => {
    for (const text of ["ok", "42 + 17 = 59", "🙂🙂🙂", ""]) {
      const allow = await runCheck(language, { allow: ["en"] }, { text });
      expect(allow.verdict, text).toBe(false);
      expect(allow.data?.undetermined).toBe(true);
      expect(allow.data?.explanation).toMatch(/^Language undetermined: the text has \d+ letters?, fewer than 12; fails/);
      const deny = await runCheck(language, { deny: ["ru"] }, { text });
      expect(deny.verdict, text).toBe(true);
      expect(deny.data?.undetermined).toBe(true);
    }
    const strict = await runCheck(language, { deny: ["ru"], undetermined: "fail" }, { text: "ok" });
    expect(strict.verdict).toBe(false);
    expect(strict.data?.explanation).toContain("as `undetermined` says");
  });

  it("rejects configurations that could never decide", () => {
    expect(() => prepareCheck(language, {})).toThrow(/set `allow`, `deny` or both/);
    expect(() => prepareCheck(language, { allow: ["xx"] })).toThrow(/allow.*"xx" is not a language the detector knows/);
    expect(() => prepareCheck(language, { allow: ["en"], deny: ["en"] })).toThrow(/"en" is both allowed and denied/);
    expect(() => prepareCheck(language, { allow: ["EN"] })).toThrow(/allow/);
  });

  const questions = path.resolve(
    import.meta.dirname,
    "../../../../shared/datasets/prompt-injection/xquad-questions-benign.jsonl",
  );
  it.skipIf(!existsSync(questions))("detects the XQuAD questions of each language (needs ../shared/datasets)", async () => {
    const rows = readFileSync(questions, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { text: string; category: string });
    const byLanguage = new Map<string, { right: number; all: number }>();
    for (const row of rows) {
      const code = row.category.replace("xquad_question_", "");
      const out = await runCheck(language, { allow: [code] }, { text: row.text });
      const tally = byLanguage.get(code) ?? { right: 0, all: 0 };
      tally.all++;
      if (out.verdict) tally.right++;
      byLanguage.set(code, tally);
    }
    for (const [code, { right, all }] of byLanguage) expect(right / all, code).toBeGreaterThan(0.85);
  });
});
if (!existsSync(path.resolve(import.meta.dirname, "../../../../shared/datasets")))
  console.warn("model.language: ../shared/datasets is missing; the XQuAD accuracy test is skipped");
