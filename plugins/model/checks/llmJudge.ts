/**
 * `model.llmJudge`: asks a model, through one of the gateway's own providers, to judge the text
 * against a rubric, and reads back a strict JSON verdict. Answers are cached by rubric, model and
 * text hash in a bounded cache.
 */
import { createHash, randomBytes } from "node:crypto";
import { LRUCache } from "lru-cache";
import { type JudgeAnswer, parseJudgeAnswer } from "../shared/judge-answer.js";
import { judgedText, RUBRIC_NAMES, type RubricName, rubricPrompt } from "../shared/judge-rubrics.js";
import { callJudge, type JudgeEndpoint } from "../shared/judge-wire.js";
import { type CheckContext, defineCheck, GuardgateError, textExcerpt } from "../../../core/index.js";
import type { ModelErrorCode } from "../shared/error-codes.js";

interface Parameters {
  rubric: RubricName;
  topic?: string;
  criteria?: string;
  model: string;
  provider?: string;
  maxTokens: number;
  maxTextChars: number;
  cache: boolean;
}

/** The judge cannot be reached as configured. */
export class JudgeConfigError extends GuardgateError {
  constructor(message: string) {
    super("judge_unreachable" satisfies ModelErrorCode, message);
  }
}

/** Cached answers: a repeated text costs no call. Bounded in entries and age, per thread. */
const answers = new LRUCache<string, JudgeAnswer>({ max: 2_000, ttl: 15 * 60_000 });

/** The provider slug and the model name a check's parameters name. */
export function judgeTarget(parameters: { model: string; provider?: string }): { slug: string; model: string } | undefined {
  if (parameters.model.startsWith("@")) {
    const slash = parameters.model.indexOf("/");
    if (slash < 2 || slash === parameters.model.length - 1) return undefined;
    return { slug: parameters.model.slice(1, slash), model: parameters.model.slice(slash + 1) };
  }
  if (parameters.provider?.startsWith("@") && parameters.provider.length > 1) {
    return { slug: parameters.provider.slice(1), model: parameters.model };
  }
  return undefined;
}

function endpointFor(context: CheckContext, slug: string): JudgeEndpoint {
  const judges = (context.credentials?.judges ?? {}) as Record<string, unknown>;
  const endpoint = judges[slug] as Partial<JudgeEndpoint> | undefined;
  if (!endpoint) {
    throw new JudgeConfigError(
      `no judge endpoint for provider "@${slug}": define a provider with slug "${slug}" on the gateway, or (outside a gateway) give parameters.credentials.judges.${slug} = {format, base_url, api_key}`,
    );
  }
  if ((endpoint.format !== "openai" && endpoint.format !== "anthropic") || typeof endpoint.base_url !== "string") {
    throw new JudgeConfigError(`the judge endpoint for "@${slug}" needs format "openai" or "anthropic" and a base_url`);
  }
  return endpoint as JudgeEndpoint;
}

export default defineCheck<Parameters>({
  id: "llmJudge",
  name: "LLM judge",
  description:
    "Asks a model through one of the gateway's providers to judge the text against a rubric (prompt injection, gibberish, off-topic, your policy) and fails on its verdict.",
  sides: ["input", "output"],
  kind: "network",
  parameters: {
    type: "object",
    properties: {
      rubric: {
        enum: [...RUBRIC_NAMES],
        description: "`promptInjection`, `gibberish`, `offTopic` (needs `topic`) or `policy` (needs `criteria`).",
      },
      topic: { type: "string", minLength: 1, maxLength: 2000, description: "For `offTopic`: what the assistant is about." },
      criteria: {
        type: "string",
        minLength: 1,
        maxLength: 10000,
        description: "For `policy`: the policy the text must not violate, in plain words.",
      },
      model: {
        type: "string",
        minLength: 1,
        description:
          "The judge: `@<provider_slug>/<model>` (a provider defined on the gateway), or a model name with `provider`.",
      },
      provider: {
        type: "string",
        pattern: "^@[A-Za-z0-9][A-Za-z0-9_.-]*$",
        description: "`@<provider_slug>` of the judge, when `model` is a bare model name.",
      },
      maxTokens: {
        type: "integer",
        minimum: 16,
        maximum: 4096,
        default: 256,
        description: "Most tokens the judge may answer with.",
      },
      maxTextChars: {
        type: "integer",
        minimum: 1,
        maximum: 1_000_000,
        default: 32_000,
        description: "Longest text sent to the judge; a longer text is a check error rather than judged in part.",
      },
      cache: {
        type: "boolean",
        default: true,
        description: "Reuse the answer for a text already judged by the same rubric and model.",
      },
    },
    required: ["rubric", "model"],
    additionalProperties: false,
  },
  data: {
    verdict: { type: "string", description: "The judge's verdict: `pass` or `fail`." },
    score: { type: "number", description: "How surely the text violates the rubric, 0–1, as the judge said." },
    reason: { type: "string", description: "The judge's reason." },
    rubric: { type: "string", description: "The rubric applied." },
    model: { type: "string", description: "The judge's provider slug and model, `@slug/model`." },
    usage: {
      type: "{input_tokens, output_tokens}",
      description: "Tokens the judge's call used (0 when the answer came from the cache).",
    },
    cached: { type: "boolean", description: "Whether the answer came from the cache." },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
  },
  examples: [
    {
      parameters: { rubric: "promptInjection", model: "@openai-judge/gpt-4o-mini" },
      description: "A second opinion on injections.",
    },
    {
      parameters: {
        rubric: "offTopic",
        topic: "our bank's savings accounts and cards",
        model: "@claude/claude-3-5-haiku-latest",
      },
      description: "Keep a support assistant on its subject.",
    },
    {
      parameters: { rubric: "policy", criteria: "No medical diagnoses or dosage advice.", model: "@openai-judge/gpt-4o-mini" },
      description: "Your own policy, in words.",
    },
  ],
  notes: [
    "docs/models-judge.md has the design and a worked example. The judge is reached through a provider defined on the gateway (a `providers:` entry of the config file, or a provider record): `model: \"@slug/model\"`, or `provider: \"@slug\"` with a bare `model`. The gateway resolves the slug to the provider's format (OpenAI or Anthropic wire format), base URL and credential, and hands that to the check with the phase, as it hands plugin credentials. The client's own credentials are never forwarded: the judge call carries the provider record's credential only. Outside a gateway (`guardgate check`, the library), set `parameters.credentials.judges.<slug>` to `{format, base_url, api_key}`. Calls go through the checks' network policy (core/net): private and loopback addresses are refused unless the gateway allows them.",
    "",
    'The text is sent as data between random fence lines, with a system prompt that states the rubric and the answer\'s form. The answer must be exactly a JSON object `{"verdict": "pass"|"fail", "score": 0–1, "reason": "…"}`; anything else (prose, a code fence, a missing or extra key, a score outside 0–1), an error status or a time-out is a check error, never a pass (the guardrail fails on it with `fail_on_error`).',
    "",
    "Answers are cached per worker thread by (rubric with its topic or criteria, provider and model, SHA-256 of the text), up to 2,000 answers for 15 minutes. The check's time limit is the network one (10 s by default; `timeout` sets another). The judge's token usage is in `data.usage`, so the request log, which keeps every check result, records it.",
  ].join("\n"),
  validate({ rubric, topic, criteria, model, provider }) {
    if (rubric === "offTopic" && !topic) return { parameter: "topic", message: "the offTopic rubric needs a topic" };
    if (rubric === "policy" && !criteria) return { parameter: "criteria", message: "the policy rubric needs criteria" };
    if (model.startsWith("@") && provider)
      return { parameter: "provider", message: "give the provider either in model (@slug/model) or here, not both" };
    if (!judgeTarget({ model, ...(provider && { provider }) })) {
      return {
        parameter: "model",
        message: `"${model}" names no provider: use "@<provider_slug>/<model>", or set provider to "@<provider_slug>"`,
      };
    }
    return undefined;
  },
  async run(context, parameters) {
    const { rubric, topic, criteria, maxTokens, maxTextChars } = parameters;
    const target = judgeTarget(parameters) as { slug: string; model: string };
    const text = context.text;
    if (text.length > maxTextChars) {
      throw new GuardgateError(
        "judge_text_too_long",
        `the text has ${text.length} characters, over maxTextChars (${maxTextChars}); it is not judged in part`,
      );
    }
    const endpoint = endpointFor(context, target.slug);
    const judge = `@${target.slug}/${target.model}`;
    const key = createHash("sha256")
      .update(JSON.stringify([rubric, topic ?? "", criteria ?? "", judge, endpoint.base_url]))
      .update("\0")
      .update(text)
      .digest("hex");
    let answer = parameters.cache ? answers.get(key) : undefined;
    const cached = answer !== undefined;
    let usage = { input_tokens: 0, output_tokens: 0 };
    if (!answer) {
      const marker = `-----${randomBytes(12).toString("hex")}-----`;
      const reply = await callJudge({
        endpoint,
        model: target.model,
        system: rubricPrompt(rubric, { ...(topic && { topic }), ...(criteria && { criteria }) }),
        user: judgedText(text, marker),
        maxTokens,
        settings: context.settings,
        signal: context.signal,
      });
      usage = reply.usage;
      answer = parseJudgeAnswer(reply.text);
      if (parameters.cache) answers.set(key, answer);
    }
    const verdict = answer.verdict === "pass";
    return {
      verdict,
      data: {
        verdict: answer.verdict,
        score: answer.score,
        reason: answer.reason,
        rubric,
        model: judge,
        usage,
        cached,
        explanation: `${judge} judged the text ${verdict ? "to pass" : "to fail"} the ${rubric} rubric (score ${answer.score})${cached ? ", from the cache" : ""}: ${answer.reason}`,
        textExcerpt: textExcerpt(text),
      },
    };
  },
});
