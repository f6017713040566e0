/**
 * An example check: fails when the text holds more links than allowed (spam, phishing, answers
 * that send users away). Replace it with your own; keep the shape: metadata as data (the gateway
 * validates parameters against `parameters` when a config is loaded, with defaults applied, then
 * calls `validate`), and one `run` function.
 */
import { defineCheck, textExcerpt } from "guardgate";

export interface MaxLinksParameters {
  max: number;
  allowDomains: string[];
}

// A linear scan: a scheme, then everything up to a space, a quote or a closing bracket.
const LINK = /\bhttps?:\/\/[^\s<>"'`)\]]+/gi;
const TRAILING_PUNCTUATION = /[.,;:!?]+$/;
/** At most this many links are listed in `data`; the count covers them all. */
const LISTED = 10;

function hostOf(link: string): string | undefined {
  try {
    return new URL(link).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

export default defineCheck<MaxLinksParameters>({
  id: "maxLinks",
  name: "Maximum links",
  description: "Fails when the text holds more than `max` links (http and https), not counting allowed domains.",
  sides: ["input", "output"],
  parameters: {
    type: "object",
    properties: {
      max: { type: "integer", minimum: 0, default: 3, description: "Most links allowed (inclusive)." },
      allowDomains: {
        type: "array",
        items: { type: "string", minLength: 1 },
        default: [],
        description: "Domains whose links are not counted, subdomains included (example.com).",
      },
    },
    additionalProperties: false,
  },
  // What a schema cannot say clearly: a URL where a domain belongs.
  validate({ allowDomains }) {
    const url = allowDomains.find((domain) => domain.includes("/"));
    return url ? { parameter: "allowDomains", message: `"${url}" is a URL; give its domain, e.g. example.com` } : undefined;
  },
  data: {
    linkCount: { type: "number", description: "Links counted (links to allowed domains are not)." },
    max: { type: "number", description: "The maximum applied." },
    links: { type: "string[]", description: `The first ${LISTED} links counted.` },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
  },
  // Each example states the verdict the check gives on it; test/maxLinks.test.ts runs them all
  // (runExamples), so the docs and the console never show an example the check disagrees with.
  examples: [
    {
      parameters: { max: 1, allowDomains: ["example.com"] },
      text: "See https://docs.example.com/start.",
      description: "Passes: links to allowed domains are not counted.",
      verdict: true,
      data: { linkCount: 0 },
    },
    {
      parameters: { max: 1 },
      text: "Read http://a.example/x, then https://b.example.",
      description: "Fails: two links where one is allowed.",
      verdict: false,
      data: { links: ["http://a.example/x", "https://b.example"] },
    },
  ],
  run({ text }, { max, allowDomains }) {
    const allowed = allowDomains.map((domain) => domain.toLowerCase());
    const links: string[] = [];
    for (const [match] of text.matchAll(LINK)) {
      const link = match.replace(TRAILING_PUNCTUATION, "");
      const host = hostOf(link);
      if (host && allowed.some((domain) => host === domain || host.endsWith(`.${domain}`))) continue;
      links.push(link);
    }
    const verdict = links.length <= max;
    return {
      verdict,
      data: {
        linkCount: links.length,
        max,
        links: links.slice(0, LISTED),
        explanation: `${links.length} link${links.length === 1 ? "" : "s"} counted; at most ${max} allowed.`,
        textExcerpt: textExcerpt(text),
      },
    };
  },
});
