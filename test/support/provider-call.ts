/** A `ProviderCall` for unit tests of codecs and backends, on the endpoint of a route. */
import type { Json, ProviderCall } from "../../server/providers/kind.js";
import { ENDPOINTS } from "../../server/formats/endpoints.js";
import type { HttpProvider } from "../../server/providers/provider.js";

export function providerCall(
  route: string,
  options: {
    body?: Json;
    stream?: boolean;
    dropParams?: boolean;
    provider?: Partial<HttpProvider>;
    headers?: Record<string, string>;
  } = {},
): ProviderCall {
  const endpoint = ENDPOINTS.find((e) => e.route === route);
  if (!endpoint) throw new Error(`no endpoint ${route}`);
  const body = options.body ?? {};
  return {
    endpoint,
    body,
    text: JSON.stringify(body),
    stream: options.stream ?? false,
    headers: options.headers ?? {},
    provider: {
      kind: "http",
      name: "openai",
      options: {},
      baseUrl: "http://provider.test/v1",
      trusted: true,
      headers: {},
      identity: "test",
      ...options.provider,
    },
    dropParams: options.dropParams ?? false,
  };
}
