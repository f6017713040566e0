/** The `crowdstrike-aidr` plugin: CrowdStrike Falcon AIDR, with the peer gateway's ids and credential names. */
import { definePlugin } from "../../core/index.js";
import { definePartner } from "../partner-kit/index.js";
import guardChatCompletions, { AIDR_CREDENTIALS } from "./guardChatCompletions.js";

/** The plugin with the facts the partner reference is generated from. */
export const partner = definePartner({
  vendor: "CrowdStrike Falcon AIDR",
  reference:
    "AIDR's `POST /v1/guard_chat_completions` as the peer gateway's plugin calls it, in the Pangea response envelope AIDR inherited from Pangea AI Guard (pangea.cloud/docs/api)",
  plugin: definePlugin({
    id: "crowdstrike-aidr",
    name: "CrowdStrike AIDR",
    description: "CrowdStrike Falcon AIDR: policies on chat requests and responses, blocking or sanitising them.",
    class: "PARTNER",
    apiVersion: 1,
    credentials: AIDR_CREDENTIALS,
    checks: [guardChatCompletions],
  }),
  checks: {
    guardChatCompletions: {
      verdict: "AIDR blocks (`result.blocked`), or asks for changes (`result.transformed`) without `redact`",
      redaction: "the whole request or response, as AIDR's `guard_output`",
    },
  },
});

/** The plugin itself: what the engine loads from this module. */
export default partner.plugin;
