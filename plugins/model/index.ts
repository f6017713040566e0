/**
 * The `model` plugin: checks that decide with a model. This list is the plugin's manifest;
 * `npm run docs:checks` generates docs/checks.md from it. Each check is one module in checks/;
 * what they share (text folding, hashed features, weights files, the shipped models) lives in
 * shared/, and the shipped weights in weights/ (`npm run train:models` writes them).
 */
import { definePlugin } from "../../core/index.js";
import gibberish from "./checks/gibberish.js";
import promptInjection from "./checks/promptInjection.js";

export default definePlugin({
  id: "model",
  name: "Model-based checks",
  description: "Checks that decide with a model: local classifiers shipped in the package, and models you plug in.",
  class: "PRO",
  apiVersion: 1,
  checks: [promptInjection, gibberish],
});
