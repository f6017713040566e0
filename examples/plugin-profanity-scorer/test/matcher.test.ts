import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { maskMatches, WordMatcher } from "../src/matcher.js";
import { DEFAULT_WORDS } from "../src/words.js";

const matcher = new WordMatcher(Object.entries(DEFAULT_WORDS));
const words = (text: string) => matcher.find(text).map((m) => m.word);

describe("WordMatcher", () => {
  it("finds listed words in any case and with accents", () => {
    assert.deepEqual(words("SHIT, Fück and DaMn"), ["shit", "fuck", "damn"]);
  });

  it("sees through digits and symbols for letters, stretched and masked letters", () => {
    assert.deepEqual(words("sh1t a$$ b1tch fuuuuck ffffuck shiiit asssss f*ck sh*t f**k b*tch"), [
      "shit",
      "ass",
      "bitch",
      "fuck",
      "fuck",
      "shit",
      "ass",
      "fuck",
      "shit",
      "fuck",
      "bitch",
    ]);
  });

  it("finds inflections", () => {
    assert.deepEqual(words("fucking fuckin shitty crappy bitches damned dickhead motherfuckers dumbasses f*cking"), [
      "fuck",
      "fuck",
      "shit",
      "crap",
      "bitch",
      "damn",
      "dick",
      "motherfucker",
      "dumbass",
      "fuck",
    ]);
  });

  it("never matches words that merely contain a listed word", () => {
    assert.deepEqual(
      words("Scunthorpe assassin class hello shell cocktail passed assess Dickens scrap therapist bass glasses"),
      [],
    );
  });

  it("takes markdown emphasis for emphasis, not for masking, and ignores numbers and amounts", () => {
    assert.deepEqual(words("**hello** *shit* $100 4 8 15 16 23 42"), ["shit"]);
  });

  it("reports each match as written, at its offset, with its severity", () => {
    const [match] = matcher.find("Well, f*ck.");
    assert.deepEqual(match, { word: "fuck", text: "f*ck", index: 6, severity: 3 });
  });
});

describe("maskMatches", () => {
  it("masks each match after its first letter and leaves the rest of the text alone", () => {
    const text = "Damn, that sh1t is 🔥 fück.";
    assert.equal(maskMatches(text, matcher.find(text)), "D***, that s*** is 🔥 f***.");
  });
});
