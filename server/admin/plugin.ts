/**
 * The admin API (`/admin/v1/...`) as a fastify plugin: authenticated by `x-gateway-api-key`,
 * bodies validated by JSON Schema, errors as `{error: {code, message}}` with 400 / 401 / 403 /
 * 404 / 409, and its OpenAPI document at `/admin/v1/openapi.json` (public: it holds no data).
 * `GET /v1/models` lists the caller's workspace's models for the members' gallery; `GET /v1/models/{id}` reads one.
 */
import swagger from "@fastify/swagger";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ConfigError } from "../../core/index.js";
import { CONFIG_ERROR_STATUS } from "../error-codes.js";
import { describeError, storeRetryAfter } from "../describe-error.js";
import { errorBody } from "../errors.js";
import { LimitError } from "../limits/enforcer.js";
import type { AuthThrottle } from "../auth-throttle.js";
import type { GatewaySources } from "../management/gateway-sources.js";
import type { Management } from "../management/index.js";
import { ManagementError } from "../store/errors.js";
import type { ReloadReport } from "./reload-report.js";
import { reloadRoute } from "./routes/reload.js";
import { type FileManagedRecords, fileManagedRecords } from "./file-managed.js";
import { actorOf, requireAdminKey } from "./auth.js";
import { logRoutes } from "./routes/logs.js";
import { pluginIntegrationRoutes } from "./routes/plugin-integrations.js";
import { mcpServerRoutes } from "./routes/mcp-servers.js";
import { providerRoutes } from "./routes/providers.js";
import { policyRoutes } from "./routes/policies.js";
import { recordRoutes } from "./routes/records.js";
import { qualityRoutes } from "./routes/quality.js";
import { replayRoutes } from "./routes/replays.js";
import { ADMIN_BODY_LIMIT } from "./routes/route.js";
import { tenancyRoutes } from "./routes/tenancy.js";
import { adminValidatorCompiler } from "./validation.js";

/** Where the admin API lives. */
export const ADMIN_PREFIX = "/admin/v1";

/** Options of the admin plugin. */
export interface AdminOptions {
  management: Management;
  sources: GatewaySources;
  /** guardgate's version, for the OpenAPI document. */
  version?: string;
  /** `POST /admin/v1/reload`: reads the config file again, for the admins of the organization it seeds. */
  reload?: { run: () => Promise<ReloadReport>; organization: () => string | undefined };
  /** Failed keys throttled per source; shared with the `/v1` routes so a source is counted once. */
  throttle?: AuthThrottle;
  /** The records the config file seeds: marked in answers, and not to be edited here unless allowed. */
  fileRecords?: FileManagedRecords;
}

/** Status, code and message of any error an admin route raised. */
export function adminError(error: unknown): { status: number; code: string; message: string } {
  if (error instanceof ManagementError || error instanceof LimitError) {
    return { status: error.status, code: error.code, message: error.message };
  }
  if (error instanceof ConfigError) return { status: CONFIG_ERROR_STATUS, code: error.code, message: error.message };
  return describeError(error, ADMIN_BODY_LIMIT);
}

/** Logs a failed admin request: a store outage at warn with its cause, a bug at error. */
function logFailure(request: FastifyRequest, reply: FastifyReply, error: unknown, status: number, code: string): void {
  const retryAfter = storeRetryAfter(code);
  if (retryAfter !== undefined) {
    reply.header("retry-after", String(retryAfter));
    request.log.warn({ cause: (error as Error).message }, "admin request refused: the store cannot be reached");
  } else if (status >= 500) request.log.error({ err: error }, "admin request failed");
}

function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown) {
  const { status, code, message } = adminError(error);
  logFailure(request, reply, error, status, code);
  return reply.code(status).send({ error: { code, message } });
}

const MODELS_QUERY = {
  type: "object",
  properties: { workspace_id: { type: "string", description: "For organization-level keys: which workspace." } },
  additionalProperties: false,
} as const;

/** Registers the admin API, `GET /v1/models` and `GET /v1/models/{id}`. */
export async function adminPlugin(app: FastifyInstance, options: AdminOptions): Promise<void> {
  const { management, sources, throttle } = options;
  await app.register(
    async (admin) => {
      admin.setValidatorCompiler(adminValidatorCompiler);
      admin.setErrorHandler((error: FastifyError, request, reply) => sendError(request, reply, error));
      admin.setNotFoundHandler((request, reply) =>
        reply.code(404).send({
          error: { code: "not_found", message: `${request.method} ${request.url.split("?")[0]} is not a route of the admin API` },
        }),
      );
      await admin.register(swagger, {
        openapi: {
          openapi: "3.1.0",
          info: {
            title: "guardgate admin API",
            version: options.version ?? "1",
            description:
              "Organizations, workspaces, API keys, integrations, plugin integrations, providers, guardrails, configs, policies, replays and request logs. Every route takes an API key in `x-gateway-api-key`; its role (org_admin, workspace_admin, member) and workspace decide what it may see and change.",
          },
          components: { securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "x-gateway-api-key" } } },
        },
      });
      admin.get("/openapi.json", { schema: { hide: true } }, async () => admin.swagger());
      await admin.register(async (scope) => {
        requireAdminKey(scope, sources, throttle);
        if (options.fileRecords) fileManagedRecords(scope, options.fileRecords);
        tenancyRoutes(scope, management);
        providerRoutes(scope, management);
        mcpServerRoutes(scope, management);
        pluginIntegrationRoutes(scope, management);
        recordRoutes(scope, management);
        policyRoutes(scope, management);
        replayRoutes(scope, management);
        logRoutes(scope, management);
        qualityRoutes(scope, management);
        if (options.reload) reloadRoute(scope, options.reload);
      });
    },
    { prefix: ADMIN_PREFIX },
  );

  /** The workspace whose models a request lists: the key's own, or the one an organization-level key names. */
  async function modelsWorkspace(request: FastifyRequest): Promise<string> {
    const actor = actorOf(request);
    const workspaceId = (request.query as { workspace_id?: string }).workspace_id ?? actor.workspace_id;
    if (!workspaceId) {
      throw new ManagementError("workspace_required", "workspace_id: an organization-level key must name the workspace");
    }
    return (await management.workspaces.get(actor, workspaceId)).id;
  }

  await app.register(async (scope) => {
    scope.setValidatorCompiler(adminValidatorCompiler);
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const { status, code, message } = adminError(error);
      logFailure(request, reply, error, status, code);
      return reply.code(status).send(errorBody("openai", status, code, message));
    });
    requireAdminKey(scope, sources, throttle);
    scope.get("/v1/models", { schema: { querystring: MODELS_QUERY } }, async (request) => {
      const baseUrl = `${request.protocol}://${request.host}`;
      return { object: "list", data: await management.models(await modelsWorkspace(request), baseUrl) };
    });
    // A wildcard, as model ids hold slashes (`@provider/org/model`).
    scope.get("/v1/models/*", { schema: { querystring: MODELS_QUERY } }, async (request) => {
      const id = (request.params as { "*": string })["*"];
      const models = await management.models(await modelsWorkspace(request), `${request.protocol}://${request.host}`);
      const model = models.find((m) => m.id === id);
      if (!model) throw new ManagementError("not_found", `The model '${id}' does not exist or you do not have access to it.`);
      return model;
    });
  });
}
