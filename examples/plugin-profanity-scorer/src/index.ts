/**
 * The profanity plugin: one check, `profanity.score`. The gateway loads this module's default
 * export.
 */
import { definePlugin } from "guardgate";
import score from "./score.js";

export default definePlugin({
  id: "profanity",
  name: "guardgate-plugin-profanity",
  description: "Scores profanity in requests and responses against a word list with severities.",
  // Custom plugins are `custom` (spec §5) unless the operator grants another class.
  class: "custom",
  apiVersion: 1,
  checks: [score],
});
