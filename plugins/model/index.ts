/**
 * The `model` plugin: checks that decide with a model. This list is the plugin's manifest;
 * `npm run docs:checks` generates docs/checks.md from it.
 */
import { definePlugin } from "../../core/index.js";
import classifier from "./classifier.js";
import gibberish from "./gibberish.js";
import language from "./language.js";
import llmJudge from "./llmJudge.js";
import promptInjection from "./promptInjection.js";

export default definePlugin({
  id: "model",
  name: "Model-based checks",
  description: "Checks that decide with a model: local classifiers shipped in the package, and models you plug in.",
  class: "PRO",
  apiVersion: 1,
  checks: [promptInjection, gibberish, language, classifier, llmJudge],
});
