/**
 * The feedback routes, behind the gateway API key like the inference routes (feedback.ts), and
 * rate limited per key (feedback-rate.ts).
 */
import type { FastifyInstance } from "fastify";
import { identityOf, requireApiKey } from "../request/open.js";
import type { AuthThrottle } from "../auth-throttle.js";
import { GatewayError } from "../errors.js";
import { MemoryCounters } from "../limits/counters.js";
import type { ApiKeySource } from "../sources/types.js";
import type { FeedbackService } from "./feedback.js";
import { FeedbackRate } from "./feedback-rate.js";

/** Feedback bodies are small; a large one is refused before it is read. */
const FEEDBACK_BODY_LIMIT = 64 * 1024;

/** Registers `POST /v1/feedback` and `PUT /v1/feedback/:id` on `app`. */
export async function feedbackRoutes(
  app: FastifyInstance,
  options: { keys: ApiKeySource; service: FeedbackService; throttle?: AuthThrottle; rate?: FeedbackRate },
) {
  // Without shared counters the rate is still limited, per instance.
  const rate = options.rate ?? new FeedbackRate({ counters: new MemoryCounters() });
  await app.register(async (scope) => {
    // Unknown keys count against their source here as on every route that takes a key.
    requireApiKey(scope, options.keys, options.throttle);
    // After the key, before the body is read: a key past its rate costs no parsing and no store query.
    scope.addHook("onRequest", async (request, reply) => {
      const wait = await rate.take(identityOf(request).id);
      if (wait === 0) return;
      reply.header("retry-after", String(wait));
      throw new GatewayError(
        "rate_limit_exceeded",
        `feedback: this key sent more than ${rate.perMinute} feedback calls in a minute; try again in ${wait} s`,
      );
    });
    scope.post("/v1/feedback", { bodyLimit: FEEDBACK_BODY_LIMIT }, async (request) =>
      options.service.send(identityOf(request).workspaceId, request.body),
    );
    scope.put<{ Params: { id: string } }>("/v1/feedback/:id", { bodyLimit: FEEDBACK_BODY_LIMIT }, async (request) =>
      options.service.update(identityOf(request).workspaceId, request.params.id, request.body),
    );
  });
}
