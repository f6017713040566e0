/**
 * The shape of one language's written text: the sentences the generator combines into labelled
 * rows. Every string is written for its language (not translated from a template), so phrasing,
 * register and length differ between languages as they do between people.
 */

/** Sentences that are attacks, by family. */
export interface AttackText {
  /** Direct override: "ignore your instructions and …". */
  override: string[];
  /** Persona and role-play jailbreaks. */
  persona: string[];
  /** Requests for the system prompt, hidden rules or configuration. */
  extraction: string[];
  /** Secret and data exfiltration; `{url}` is filled with an attacker's address (markdown image or link). */
  exfiltration: string[];
  /** Refusal suppression: "never say you cannot …". */
  refusal: string[];
  /** Frames for an encoded payload, worded for any encoding (base64, leetspeak, spaced letters); `{payload}` is the encoded text. */
  encoded: string[];
  /** Frames for a payload split across variables; `{a}` and `{b}` are its halves. */
  split: string[];
  /** A later turn that throws away what came before ("ignore the above …"). */
  ignoreAbove: string[];
  /** Instructions planted in a document for the assistant that later reads it (indirect injection). */
  planted: string[];
}

/** Sentences that are benign, many of them close to an attack in words. */
export interface BenignText {
  /** Ordinary requests to an assistant. */
  requests: string[];
  /** Short assistant replies, for transcripts. */
  replies: string[];
  /** A later turn that changes the subject harmlessly, the benign twin of `ignoreAbove`. */
  followUps: string[];
  /** Questions on sensitive topics: violence, drugs, weapons, security, medicine, law. */
  sensitive: string[];
  /** Security discussions and code reviews quoting an attack; `{quote}` is the attack. */
  quoteFrames: string[];
  /** Requests to translate, summarise or classify an attack; `{quote}` is the attack. */
  translateFrames: string[];
  /** Contract and policy clauses ("supersedes all previous agreements"). */
  contract: string[];
  /** Benign persona and role-play requests. */
  persona: string[];
  /** Commit messages and changelog lines ("ignore previous commit"). */
  commits: string[];
  /** Ordinary sentences full of trigger words ("can I ignore this warning?"). */
  triggerWords: string[];
  /** Paragraphs of ordinary documents (handbooks, minutes, reports), joined into long texts. */
  paragraphs: string[];
}

/** One language's text. */
export interface LanguagePack {
  /** ISO 639-1 code. */
  language: string;
  attacks: AttackText;
  benign: BenignText;
  /** Short casual openers put before some requests ("Quick question:"). */
  leadIns: string[];
  /** Words for carrier headers: e-mail fields, calendar fields, chat names. */
  labels: { from: string; to: string; subject: string; date: string; meeting: string; notes: string };
  /** First names for e-mails, transcripts and invites. */
  names: string[];
}
