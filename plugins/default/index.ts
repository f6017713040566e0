/**
 * The `default` plugin: guardgate's deterministic checks. This list is the plugin's manifest;
 * `npm run docs:checks` generates docs/checks.md from it.
 */
import { definePlugin } from "../../core/plugin-api.js";
import addPrefix from "./addPrefix.js";
import alllowercase from "./alllowercase.js";
import alluppercase from "./alluppercase.js";
import bannedWords from "./bannedWords.js";
import characterCount from "./characterCount.js";
import contains from "./contains.js";
import endsWith from "./endsWith.js";
import invisibleText from "./invisibleText.js";
import jsonKeys from "./jsonKeys.js";
import jsonSchema from "./jsonSchema.js";
import notNull from "./notNull.js";
import regexMatch from "./regexMatch.js";
import regexReplace from "./regexReplace.js";
import sentenceCount from "./sentenceCount.js";
import startsWith from "./startsWith.js";
import tokenCount from "./tokenCount.js";
import wordCount from "./wordCount.js";

export default definePlugin({
  id: "default",
  name: "Deterministic checks",
  description: "Checks that need no model and no service: patterns, counts, structure, code, PII and secrets.",
  class: "BASIC",
  apiVersion: 1,
  checks: [
    regexMatch,
    sentenceCount,
    wordCount,
    characterCount,
    regexReplace,
    contains,
    startsWith,
    endsWith,
    alluppercase,
    alllowercase,
    notNull,
    jsonSchema,
    jsonKeys,
    invisibleText,
    bannedWords,
    tokenCount,
    addPrefix,
  ],
});
