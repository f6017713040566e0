/** The feedback routes, behind the gateway API key like the inference routes (feedback.ts). */
import type { FastifyInstance } from "fastify";
import { identityOf, requireApiKey } from "../auth.js";
import type { AuthThrottle } from "../auth-throttle.js";
import type { ApiKeySource } from "../sources/types.js";
import type { FeedbackService } from "./feedback.js";

/** Feedback bodies are small; a large one is refused before it is read. */
const FEEDBACK_BODY_LIMIT = 64 * 1024;

/** Registers `POST /v1/feedback` and `PUT /v1/feedback/:id` on `app`. */
export async function feedbackRoutes(
  app: FastifyInstance,
  options: { keys: ApiKeySource; service: FeedbackService; throttle?: AuthThrottle },
) {
  await app.register(async (scope) => {
    // Unknown keys count against their source here as on every route that takes a key.
    requireApiKey(scope, options.keys, options.throttle);
    scope.post("/v1/feedback", { bodyLimit: FEEDBACK_BODY_LIMIT }, async (request) =>
      options.service.send(identityOf(request).workspaceId, request.body),
    );
    scope.put<{ Params: { id: string } }>("/v1/feedback/:id", { bodyLimit: FEEDBACK_BODY_LIMIT }, async (request) =>
      options.service.update(identityOf(request).workspaceId, request.params.id, request.body),
    );
  });
}
