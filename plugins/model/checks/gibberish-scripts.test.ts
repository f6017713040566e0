/**
 * model.gibberish on words that mix scripts and on leetspeak mash, against real mixed-language
 * text, as one table of texts and verdicts. None of these texts is a row of the training files.
 */
import { describe, expect, it } from "vitest";
import { runCheck } from "../../../test/support/run-check.js";

const CASES: Array<{ text: string; gibberish: boolean; kind: string }> = [
  { text: "Plеаsе lоg in tо yоur bаnk аccоunt tоdаy", gibberish: true, kind: "Cyrillic look-alikes inside English words" },
  { text: "Yοur οrder hαs shiρped frοm οur wαrehοuse", gibberish: true, kind: "Greek look-alikes inside English words" },
  { text: "Reseט yסur passwסrd", gibberish: true, kind: "Hebrew letters inside English words" },
  { text: "ԱբxγдЖqש ηוφρδ", gibberish: true, kind: "letters of five scripts mashed" },
  { text: "x9k2m q7z4p8 w3v8n1", gibberish: true, kind: "letters and digits mashed" },
  { text: "Ich hab morgen ein call mit dem Kunden", gibberish: false, kind: "German with an English word" },
  { text: "Мы обсудили roadmap на планёрке", gibberish: false, kind: "Russian with an English word" },
  { text: "Vse khorosho, spasibo", gibberish: false, kind: "Russian transliterated" },
  { text: "The sample is 5 μm thick and ΔT is 3 K", gibberish: false, kind: "units and symbols with Greek letters" },
  { text: "Run the x86_64 build with UTF-8 locale", gibberish: false, kind: "technical tokens" },
  { text: "Welcome back! Your order #4521 has shipped.", gibberish: false, kind: "digits beside words" },
  { text: "cna uoy lelt em hwere teh tsation si", gibberish: true, kind: "words with their letters shuffled" },
  { text: "I ndee to kame an pontpamient with eth dtnesit", gibberish: true, kind: "a sentence with its letters shuffled" },
  { text: "My colleagues Nguyen Thi Huong and Oluwaseun Adeyemi joined the call", gibberish: false, kind: "foreign names" },
  { text: "We flew from Reykjavik to Ljubljana via Wrocław", gibberish: false, kind: "foreign place names" },
  { text: "Main kal tumse milne aaunga, theek hai?", gibberish: false, kind: "Hindi transliterated" },
  { text: "Kyou wa isogashii desu ka? Ashita aimashou", gibberish: false, kind: "Japanese transliterated" },
  { text: "Wo xiang qu chaoshi mai dongxi", gibberish: false, kind: "Chinese in pinyin" },
  { text: "שלחתי את ה Invoice ללקוח אתמול", gibberish: false, kind: "Hebrew with an English word" },
];

describe("model.gibberish on mixed scripts and leetspeak", () => {
  it.each(CASES)("$kind: $text", async ({ text, gibberish }) => {
    const result = await runCheck("model.gibberish", {}, text);
    expect({ text, label: result.data.label }).toEqual({ text, label: gibberish ? "gibberish" : "natural" });
  });
});
