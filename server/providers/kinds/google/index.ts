/**
 * Google's models, two kinds over one translation: `google`, the Gemini API (an API key in
 * `x-goog-api-key`, `https://generativelanguage.googleapis.com/v1beta/models/{model}:…`), and
 * `vertex-ai`, Gemini on Vertex AI (a service account's access token as bearer,
 * `https://{region}-aiplatform.googleapis.com/v1/projects/{project}/locations/{region}/publishers/google/models/{model}:…`).
 * Neither speaks a format guardgate serves: chat routes reach them through the OpenAI chat form,
 * `/v1/embeddings` through their embeddings methods. A provider record's `base_url` replaces the
 * service's root (up to and including the version segment), for a proxy or a test double.
 */
import { GatewayError } from "../../../errors.js";
import type { UpstreamClient } from "../../../upstream/client.js";
import type { ChatBackend, EmbeddingsBackend, Json, NativeCall, ProviderCall, ProviderKind } from "../../kind.js";
import { googleModelId } from "../../canonical-target.js";
import { SERVICE_ACCOUNT_OPTION, serviceAccountOf, vertexAccessToken } from "./auth.js";
import { batchEmbedBody, EMBEDDINGS_PARAMETERS, fromBatchEmbed, fromPredict, predictBody } from "./embeddings.js";
import { googleError } from "./errors.js";
import { SafetyFacts } from "./filters.js";
import { CHAT_PARAMETERS, generateContentBody, type RequestFlavour } from "./request.js";
import { chatCompletion } from "./response.js";
import { chatChunks } from "./stream.js";

const GEMINI_BASE_URL = "https://generativelanguage.googleapis.com/v1beta";

/** What tells the two services apart: where a model's methods are and how a call is authorised. */
interface Service extends RequestFlavour {
  /** How messages name the service. */
  label: string;
  /** `…/models/{model}` for a call. */
  modelUrl(call: ProviderCall, model: string): string;
  /** The credential headers of a call. */
  auth(call: ProviderCall, upstream: UpstreamClient | undefined): Promise<Record<string, string>>;
  embeddingsBody(request: Json, model: string): Json;
  embeddingsMethod: string;
  embeddingsAnswer(body: Json, request: Json, provider: string): Json;
}

function modelOf(value: unknown): string {
  if (typeof value !== "string" || value === "") throw new GatewayError("invalid_model", "model: must name a Gemini model");
  // The Gemini API names models `models/{id}`, Vertex AI `publishers/google/models/{id}`: every
  // form is taken, and the id called is the one policy scopes match.
  const id = googleModelId(value);
  return encodeURIComponent(id);
}

const GEMINI: Service = {
  label: "Gemini API",
  cloudStorage: false,
  modelUrl: (call, model) => `${call.provider.baseUrl || GEMINI_BASE_URL}/models/${model}`,
  auth(call) {
    if (!call.provider.secret) {
      return Promise.reject(
        new GatewayError(
          "provider_not_configured",
          "the Gemini API needs an API key: the provider record's api_key, or api_key in the config",
        ),
      );
    }
    return Promise.resolve({ ...call.provider.headers, "x-goog-api-key": call.provider.secret });
  },
  embeddingsBody: batchEmbedBody,
  embeddingsMethod: "batchEmbedContents",
  embeddingsAnswer: fromBatchEmbed,
};

const VERTEX: Service = {
  label: "Vertex AI",
  cloudStorage: true,
  modelUrl(call, model) {
    const options = call.provider.options;
    const region = String(options.vertex_region);
    const project = (options.vertex_project_id as string | undefined) ?? serviceAccountOf(options).project_id;
    if (!project) {
      throw new GatewayError(
        "provider_not_configured",
        `Vertex AI needs vertex_project_id, or a project_id in ${SERVICE_ACCOUNT_OPTION}`,
      );
    }
    const host = region === "global" ? "aiplatform.googleapis.com" : `${region}-aiplatform.googleapis.com`;
    const base = call.provider.baseUrl || `https://${host}/v1`;
    return `${base}/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(region)}/publishers/google/models/${model}`;
  },
  async auth(call, upstream) {
    return { ...call.provider.headers, authorization: `Bearer ${await vertexAccessToken(call, upstream)}` };
  },
  embeddingsBody: (request) => predictBody(request),
  embeddingsMethod: "predict",
  embeddingsAnswer: fromPredict,
};

function chatBackend(service: Service): ChatBackend {
  return {
    parameters: CHAT_PARAMETERS,
    async request(chat, call, upstream): Promise<NativeCall> {
      const body = JSON.stringify(generateContentBody(chat, service));
      const url = `${service.modelUrl(call, modelOf(chat.model))}:${chat.stream ? "streamGenerateContent?alt=sse" : "generateContent"}`;
      const headers = { ...(await service.auth(call, upstream)), "content-type": "application/json" };
      return { url, headers, body };
    },
    response: (body, chat, call) => chatCompletion(body, chat, service.label, new SafetyFacts(call?.facts)),
    stream: (source, chat, call) => chatChunks(source, chat, service.label, new SafetyFacts(call?.facts)),
    error: (status, text, headers) => googleError(status, text, headers, service.label),
  };
}

function embeddingsBackend(service: Service): EmbeddingsBackend {
  return {
    parameters: EMBEDDINGS_PARAMETERS,
    async request(request, call, upstream): Promise<NativeCall> {
      const model = modelOf(request.model);
      const body = JSON.stringify(service.embeddingsBody(request, decodeURIComponent(model)));
      const headers = { ...(await service.auth(call, upstream)), "content-type": "application/json" };
      return { url: `${service.modelUrl(call, model)}:${service.embeddingsMethod}`, headers, body };
    },
    response: (body, request) => service.embeddingsAnswer(body, request, service.label),
    error: (status, text, headers) => googleError(status, text, headers, service.label),
  };
}

/** The Gemini API: its key is the provider's api key. */
export const GOOGLE_KIND: ProviderKind = {
  baseUrl: GEMINI_BASE_URL,
  chat: chatBackend(GEMINI),
  embeddings: embeddingsBackend(GEMINI),
};

/** Gemini on Vertex AI: a project, a region and a service account. */
export const VERTEX_AI_KIND: ProviderKind = {
  chat: chatBackend(VERTEX),
  embeddings: embeddingsBackend(VERTEX),
  optionsSchema: {
    type: "object",
    properties: {
      // Both go into the endpoint's host and path, and a config may come from a client: names only.
      vertex_project_id: {
        type: "string",
        pattern: "^[a-z0-9][a-z0-9.:-]*$",
        description: "Google Cloud project; the service account's project_id when absent",
      },
      vertex_region: {
        type: "string",
        pattern: "^[a-z0-9][a-z0-9-]*$",
        description: "Region of the endpoint (us-central1, europe-west4, global, …)",
      },
      [SERVICE_ACCOUNT_OPTION]: {
        type: ["object", "string"],
        description: "A service account key: its JSON object, or that JSON as text; its token_uri is where tokens are asked",
      },
    },
    required: ["vertex_region", SERVICE_ACCOUNT_OPTION],
    additionalProperties: false,
  },
  secretOptions: [SERVICE_ACCOUNT_OPTION],
};
