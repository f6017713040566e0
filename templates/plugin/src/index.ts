/**
 * The plugin: its id, its plan class and its checks. A check's full id is `<plugin id>.<check id>`,
 * e.g. `__PLUGIN_ID__.maxLinks`; the gateway loads this module's default export.
 */
import { definePlugin } from "guardgate";
import maxLinks from "./maxLinks.js";

export default definePlugin({
  id: "__PLUGIN_ID__",
  name: "__PACKAGE_NAME__",
  description: "Custom checks for guardgate.",
  // Custom plugins are `custom` (spec §5) unless the operator grants another class.
  class: "custom",
  apiVersion: 1,
  checks: [maxLinks],
});
