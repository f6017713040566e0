/**
 * Upstream attempts, each in a CLIENT span under the request's, with the GenAI semantic
 * conventions' attributes where the request tells them (operation, model, server) and the HTTP
 * status. The span covers the call until the answer's headers arrive.
 */
import { SpanKind } from "@opentelemetry/api";
import { UpstreamClient, type UpstreamRequest, type UpstreamResponse } from "../upstream/client.js";
import { failSpan, gatewayTracer } from "./tracer.js";

/** The GenAI operation of an upstream path. */
function operation(pathname: string): string {
  if (pathname.endsWith("/chat/completions") || pathname.endsWith("/messages")) return "chat";
  if (pathname.endsWith("/embeddings")) return "embeddings";
  if (pathname.endsWith("/completions")) return "text_completion";
  return "unknown";
}

/** The model a request body names, read without parsing the whole body when it is large. */
function requestedModel(body: string): string | undefined {
  return /"model"\s*:\s*"([^"\\]{1,200})"/.exec(body)?.[1];
}

/** An upstream client that reports each attempt as a span. */
export class TracedUpstream extends UpstreamClient {
  override send(request: UpstreamRequest): Promise<UpstreamResponse> {
    let url: URL | undefined;
    try {
      url = new URL(request.url);
    } catch {
      return super.send(request);
    }
    const op = operation(url.pathname);
    const model = requestedModel(request.body);
    return gatewayTracer().startActiveSpan(
      model ? `${op} ${model}` : op,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          "gen_ai.operation.name": op,
          ...(model && { "gen_ai.request.model": model }),
          "server.address": url.hostname,
          ...(url.port && { "server.port": Number(url.port) }),
        },
      },
      async (span) => {
        try {
          const response = await super.send(request);
          span.setAttribute("http.response.status_code", response.status);
          return response;
        } catch (error) {
          failSpan(span, error);
          throw error;
        } finally {
          span.end();
        }
      },
    );
  }
}
