import { buildApp } from "./dist/server/app.js";

const upstreamPort = Number(process.argv[2]);
const pack = {
  input_guardrails: [
    {
      id: "input-pack",
      wordCount: { minWords: 1, maxWords: 5000 },
      sentenceCount: { minSentences: 1, maxSentences: 500 },
      characterCount: { maxCharacters: 50000 },
      ssn: { id: "default.regexMatch", rule: "\\b\\d{3}-\\d{2}-\\d{4}\\b", not: true },
      card: { id: "default.regexMatch", rule: "\\b(?:\\d[ -]?){13,16}\\b", not: true },
    },
  ],
  output_guardrails: [
    {
      id: "output-pack",
      wordCount: { maxWords: 5000 },
      characterCount: { maxCharacters: 50000 },
      secrets: { id: "default.regexMatch", rule: "(?i)(api[_-]?key|password)\\s*[:=]", not: true },
    },
  ],
};
const app = await buildApp({
  logger: process.env.LOGGER === "off" ? false : { level: "warn" },
  file: {
    api_keys: [{ key: "gk-bench-0123456789abcdef" }],
    providers: [{ slug: "upstream", provider: "openai", base_url: `http://127.0.0.1:${upstreamPort}/v1`, api_key: "sk" }],
    configs: [
      { id: "none", config: { provider: "@upstream" } },
      { id: "pack", config: { provider: "@upstream", ...pack } },
    ],
  },
});
await app.listen({ port: Number(process.env.PORT ?? 8901), host: "127.0.0.1" });
console.log("ready");
setTimeout(() => process.exit(0), Number(process.argv[3] ?? 12000));
