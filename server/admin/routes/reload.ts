/**
 * `POST /admin/v1/reload`: reads the config file of `guardgate serve --config` again and applies
 * it, as SIGHUP does (server/lifecycle/reload.ts). Only the org admins of the organization the file
 * seeds may ask: the file is the operator's, and it may change every record that organization has.
 */
import type { FastifyInstance } from "fastify";
import type { ReloadReport } from "../reload-report.js";
import { requireRole } from "../../management/actor.js";
import { forbidden } from "../../store/errors.js";
import { actorOf } from "../auth.js";
import { route } from "./route.js";

const KINDS = ["api_keys", "providers", "guardrails", "configs", "policies", "plugin_credentials"] as const;
const counts = {
  type: "object",
  properties: { created: { type: "integer" }, updated: { type: "integer" }, unchanged: { type: "integer" } },
};

const reportSchema = {
  type: "object",
  properties: {
    file: { type: "string", description: "The config file's path." },
    seeded: {
      type: "object",
      description: "Records of the file created, updated or left unchanged, by kind.",
      properties: { organization_id: { type: "string" }, ...Object.fromEntries(KINDS.map((kind) => [kind, counts])) },
    },
    removed: {
      type: "object",
      description: "Records the previous file seeded that this one no longer holds, deleted (API keys by name).",
      properties: Object.fromEntries(KINDS.map((kind) => [kind, { type: "array", items: { type: "string" } }])),
    },
    restart_needed: {
      type: "array",
      items: { type: "string" },
      description:
        "Keys of the file that changed but apply only at the next start (store, redis, metrics, plugins, models, settings).",
    },
  },
};

/** Registers the reload route. */
export function reloadRoute(
  scope: FastifyInstance,
  reload: { run: () => Promise<ReloadReport>; organization: () => string | undefined },
): void {
  route(scope, {
    method: "POST",
    url: "/reload",
    summary:
      "Read the config file again: its records replace the ones it seeded, in one transaction; an invalid file is refused (400 reload_refused, naming the file and the record) and nothing changes.",
    tag: "Operations",
    response: [200, reportSchema],
    handler: async (request) => {
      const actor = actorOf(request);
      requireRole(actor, "org_admin", "reloading the config file");
      if (actor.organization_id !== reload.organization())
        throw forbidden("reloading the config file is for the admins of the organization it seeds");
      return reload.run();
    },
  });
}
