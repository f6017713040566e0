/** The `promptsecurity` plugin: Prompt Security's protection of prompts and answers, with the peer gateway's ids and parameters. */
import { definePlugin } from "../../core/index.js";
import { definePartner } from "../partner-kit/index.js";
import { PROMPT_SECURITY_CREDENTIALS, protectCheck } from "./protect-check.js";

const facts = {
  verdict: "`action` is `block`, or `modify` without `redact`",
  redaction: "Prompt Security's sanitised text (`modified_text`)",
};

/** The plugin with the facts the partner reference is generated from. */
export const partner = definePartner({
  vendor: "Prompt Security",
  reference:
    "Prompt Security's integration guides (NeMo Guardrails, LiteLLM): `POST https://<region>.prompt.security/api/protect` with an `APP-ID` header; the full API reference is for customers only",
  plugin: definePlugin({
    id: "promptsecurity",
    name: "Prompt Security",
    description: "Prompt Security: policy-driven protection of prompts and answers, with sanitisation.",
    class: "PARTNER",
    apiVersion: 1,
    credentials: PROMPT_SECURITY_CREDENTIALS,
    checks: [protectCheck("protectPrompt", "prompt"), protectCheck("protectResponse", "response")],
  }),
  checks: { protectPrompt: facts, protectResponse: facts },
});

/** The plugin itself: what the engine loads from this module. */
export default partner.plugin;
