/**
 * Label rules: which rows of a dataset made from logs are positive (label 1). A rule is a small
 * boolean expression over what the log holds, e.g.
 *
 *     feedback <= -5 or guardrail:no-injection failed
 *     check:default.pii failed and not status = 446
 *
 * Terms: `feedback OP N` (some feedback on the answer has such a value; OP one of < <= = != >= >),
 * `status OP N`, `guardrail:ID failed|passed`, `check:ID failed|passed` (the check's result in any
 * guardrail); `not`, `and`, `or` (and binds tighter) and parentheses. A rule that does not parse
 * is refused with the position of the mistake.
 */
import { invalid } from "../store/errors.js";

/** What a rule sees of one log. */
export interface LabelFacts {
  status: number;
  feedback: readonly number[];
  /** Verdict per guardrail id. */
  guardrails: Readonly<Record<string, "pass" | "fail">>;
  /** Check ids that failed, in any guardrail. */
  failedChecks: ReadonlySet<string>;
  /** Check ids that ran, in any guardrail. */
  ranChecks: ReadonlySet<string>;
}

/** A parsed rule. */
export type LabelRule = (facts: LabelFacts) => boolean;

type Op = "<" | "<=" | "=" | "!=" | ">=" | ">";
const TOKEN = /\s*(?:(<=|>=|!=|==|<|>|=|\(|\))|(-?\d+(?:\.\d+)?)|((?:guardrail|check):[A-Za-z0-9._:\-/]+)|([A-Za-z_]+))/y;

interface Token {
  kind: "op" | "num" | "ref" | "word";
  text: string;
  at: number;
}

function tokens(rule: string): Token[] {
  const found: Token[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < rule.length) {
    if (/^\s*$/.test(rule.slice(at))) break;
    TOKEN.lastIndex = at;
    const match = TOKEN.exec(rule);
    if (!match) throw mistake(rule, at + (/^\s*/.exec(rule.slice(at))?.[0].length ?? 0), "an unexpected character");
    const start = at + (match[0].length - match[0].trimStart().length);
    if (match[1]) found.push({ kind: "op", text: match[1] === "==" ? "=" : match[1], at: start });
    else if (match[2]) found.push({ kind: "num", text: match[2], at: start });
    else if (match[3]) found.push({ kind: "ref", text: match[3], at: start });
    else found.push({ kind: "word", text: match[4]!.toLowerCase(), at: start });
    at = TOKEN.lastIndex;
  }
  return found;
}

function mistake(rule: string, at: number, what: string) {
  return invalid(`label_rule: ${what} at character ${at + 1} of "${rule}"`, "invalid_label_rule");
}

function compare(value: number, op: Op, target: number): boolean {
  switch (op) {
    case "<":
      return value < target;
    case "<=":
      return value <= target;
    case "=":
      return value === target;
    case "!=":
      return value !== target;
    case ">=":
      return value >= target;
    case ">":
      return value > target;
  }
}

/** Parses a rule; throws a 400 naming where it went wrong. */
export function parseLabelRule(rule: string): LabelRule {
  if (rule.length > 1000) throw invalid("label_rule: is longer than 1000 characters", "invalid_label_rule");
  const list = tokens(rule);
  let i = 0;
  const peek = () => list[i];
  const end = () => (list.at(-1) ? list.at(-1)!.at + list.at(-1)!.text.length : 0);
  const expect = (what: string): Token => {
    const token = list[i++];
    if (!token) throw mistake(rule, end(), `${what} expected`);
    return token;
  };

  const or = (): LabelRule => {
    let left = and();
    while (peek()?.kind === "word" && peek()!.text === "or") {
      i++;
      const l = left;
      const r = and();
      left = (f) => l(f) || r(f);
    }
    return left;
  };
  const and = (): LabelRule => {
    let left = unary();
    while (peek()?.kind === "word" && peek()!.text === "and") {
      i++;
      const l = left;
      const r = unary();
      left = (f) => l(f) && r(f);
    }
    return left;
  };
  const unary = (): LabelRule => {
    const token = expect("a term (feedback, status, guardrail:ID, check:ID, not, a parenthesis)");
    if (token.kind === "word" && token.text === "not") {
      const inner = unary();
      return (f) => !inner(f);
    }
    if (token.kind === "op" && token.text === "(") {
      const inner = or();
      const close = expect('")"');
      if (close.text !== ")") throw mistake(rule, close.at, '")" expected');
      return inner;
    }
    if (token.kind === "word" && (token.text === "feedback" || token.text === "status")) {
      const op = expect("a comparison (<, <=, =, !=, >=, >)");
      if (op.kind !== "op" || op.text === "(" || op.text === ")")
        throw mistake(rule, op.at, "a comparison (<, <=, =, !=, >=, >) expected");
      const number = expect("a number");
      if (number.kind !== "num") throw mistake(rule, number.at, "a number expected");
      const target = Number(number.text);
      const o = op.text as Op;
      if (token.text === "status") return (f) => compare(f.status, o, target);
      return (f) => f.feedback.some((value) => compare(value, o, target));
    }
    if (token.kind === "ref") {
      const [kind, ...rest] = token.text.split(":");
      const id = rest.join(":");
      const state = expect("failed or passed");
      if (state.kind !== "word" || (state.text !== "failed" && state.text !== "passed"))
        throw mistake(rule, state.at, '"failed" or "passed" expected');
      const failed = state.text === "failed";
      if (kind === "guardrail") return (f) => (failed ? f.guardrails[id] === "fail" : f.guardrails[id] === "pass");
      return (f) => (failed ? f.failedChecks.has(id) : f.ranChecks.has(id) && !f.failedChecks.has(id));
    }
    throw mistake(rule, token.at, `"${token.text}" is not a term (feedback, status, guardrail:ID, check:ID, not)`);
  };

  if (list.length === 0) throw invalid("label_rule: is empty", "invalid_label_rule");
  const parsed = or();
  const rest = peek();
  if (rest) throw mistake(rule, rest.at, `"${rest.text}" after a whole rule (join terms with and / or)`);
  return parsed;
}
