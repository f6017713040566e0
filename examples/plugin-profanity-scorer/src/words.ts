/**
 * The built-in word list: general English profanity, each word with a severity. The severity says
 * how offensive the word is and how sure a match is that it was meant so: words that are also
 * ordinary words or names (ass, cock, prick, hell) weigh 1, so that alone they stay under the
 * default threshold of 2.
 *
 * Slurs and hate speech are deliberately not here: telling their use from their discussion needs
 * more than a word list. Operators add their own words with `extraWords`.
 */
export type Severity = 1 | 2 | 3;

export const DEFAULT_WORDS: Readonly<Record<string, Severity>> = {
  // 1: mild, or also an ordinary word.
  arse: 1,
  ass: 1,
  bloody: 1,
  bugger: 1,
  cock: 1,
  crap: 1,
  damn: 1,
  dammit: 1,
  dick: 1,
  douche: 1,
  hell: 1,
  piss: 1,
  prick: 1,
  // 2: strong.
  arsehole: 2,
  asshole: 2,
  bastard: 2,
  bitch: 2,
  bollocks: 2,
  bullshit: 2,
  douchebag: 2,
  dumbass: 2,
  goddamn: 2,
  jackass: 2,
  shit: 2,
  shite: 2,
  stfu: 2,
  twat: 2,
  wanker: 2,
  wtf: 2,
  // 3: severe.
  cunt: 3,
  fuck: 3,
  motherfucker: 3,
};
