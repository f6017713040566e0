/**
 * The `default` plugin: guardgate's deterministic checks. This list is the plugin's manifest;
 * `npm run docs:checks` generates docs/checks.md from it.
 */
import { definePlugin } from "../../core/index.js";
import addPrefix from "./addPrefix.js";
import alllowercase from "./alllowercase.js";
import allowedRequestTypes from "./allowedRequestTypes.js";
import alluppercase from "./alluppercase.js";
import bannedWords from "./bannedWords.js";
import characterCount from "./characterCount.js";
import contains from "./contains.js";
import containsCode from "./containsCode.js";
import endsWith from "./endsWith.js";
import invisibleText from "./invisibleText.js";
import jsonKeys from "./jsonKeys.js";
import jsonSchema from "./jsonSchema.js";
import jwt from "./jwt.js";
import log from "./log.js";
import modelRules from "./modelRules.js";
import modelWhitelist from "./modelWhitelist.js";
import notNull from "./notNull.js";
import pii from "./pii.js";
import regexMatch from "./regexMatch.js";
import regexReplace from "./regexReplace.js";
import requiredMetadataKeys from "./requiredMetadataKeys.js";
import secrets from "./secrets.js";
import sentenceCount from "./sentenceCount.js";
import startsWith from "./startsWith.js";
import tokenCount from "./tokenCount.js";
import validUrls from "./validUrls.js";
import webhook from "./webhook.js";
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
    containsCode,
    pii,
    secrets,
    modelWhitelist,
    modelRules,
    allowedRequestTypes,
    requiredMetadataKeys,
    webhook,
    log,
    jwt,
    validUrls,
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
