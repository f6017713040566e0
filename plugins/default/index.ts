/**
 * The `default` plugin: guardgate's deterministic checks. This list is the plugin's manifest;
 * `npm run docs:checks` generates docs/checks.md from it. Each check is one module in checks/,
 * named for its id, with its test beside it; what several checks share (text segments, JSON
 * extraction, match scanning, the code, PII and secret detectors, …) lives in shared/.
 */
import { definePlugin } from "../../core/index.js";
import addPrefix from "./checks/addPrefix.js";
import alllowercase from "./checks/alllowercase.js";
import allowedRequestTypes from "./checks/allowedRequestTypes.js";
import alluppercase from "./checks/alluppercase.js";
import bannedWords from "./checks/bannedWords.js";
import characterCount from "./checks/characterCount.js";
import contains from "./checks/contains.js";
import containsCode from "./checks/containsCode.js";
import endsWith from "./checks/endsWith.js";
import invisibleText from "./checks/invisibleText.js";
import jsonKeys from "./checks/jsonKeys.js";
import jsonSchema from "./checks/jsonSchema.js";
import jwt from "./checks/jwt.js";
import log from "./checks/log.js";
import modelRules from "./checks/modelRules.js";
import modelWhitelist from "./checks/modelWhitelist.js";
import notNull from "./checks/notNull.js";
import pii from "./checks/pii.js";
import regexMatch from "./checks/regexMatch.js";
import regexReplace from "./checks/regexReplace.js";
import requiredMetadataKeys from "./checks/requiredMetadataKeys.js";
import secrets from "./checks/secrets.js";
import sentenceCount from "./checks/sentenceCount.js";
import startsWith from "./checks/startsWith.js";
import tokenCount from "./checks/tokenCount.js";
import validUrls from "./checks/validUrls.js";
import webhook from "./checks/webhook.js";
import wordCount from "./checks/wordCount.js";

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
