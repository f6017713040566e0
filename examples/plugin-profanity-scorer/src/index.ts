/**
 * The plugin: its id, its plan class and its checks. A check's full id is `<plugin id>.<check id>`,
 * e.g. `profanity.bannedWords`; the gateway loads this module's default export.
 */
import { definePlugin } from "guardgate";
import bannedWords from "./bannedWords.js";

export default definePlugin({
  id: "profanity",
  name: "guardgate-plugin-profanity",
  description: "Custom checks for guardgate.",
  // Custom plugins are `custom` (spec §5) unless the operator grants another class.
  class: "custom",
  apiVersion: 1,
  checks: [bannedWords],
});
