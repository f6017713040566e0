/**
 * The targets a hook call's request would call, canonical, so that policies hold a hook evaluation
 * by the same rule as the inference routes: every leaf target of the call's config (its provider
 * settings and `override_params` inherited), the provider named by the request's `@slug/` model,
 * the config, the `x-gateway-provider` / `x-gateway-virtual-key` headers or the peer's `provider`,
 * and the model after resolution. A policy holding any of them holds the evaluation, since the
 * request may go to any of them.
 */
import type { IncomingHttpHeaders } from "node:http";
import { GatewayError } from "../errors.js";
import type { RoutingNode } from "../routing/build.js";
import { type CanonicalTarget, canonicalTarget, type TargetProvider } from "../providers/canonical-target.js";
import { MOCK_PROVIDER } from "../providers/catalog.js";
import { type HeaderProviderSettings, providerNaming, type ProviderResolver } from "../providers/resolve.js";
import type { Scope } from "../sources/types.js";
import { headerProviderSettings, NO_HEADER_PROVIDER } from "./open.js";

/** What names a hook call's providers. */
export interface HookTargetInput {
  /** The config's routing root; none when the call names its guardrails. */
  root: RoutingNode | undefined;
  /** The model of the evaluated request. */
  model: unknown;
  /** The hook call's headers, or none for the peer gateway's webhook (its headers are not the client's). */
  headers: IncomingHttpHeaders | undefined;
  /** A provider name the peer gateway posted. */
  provider: string | undefined;
  scope: Scope;
}

function leaves(node: RoutingNode): RoutingNode[] {
  return node.targets?.length ? node.targets.flatMap(leaves) : [node];
}

/** The canonical targets a hook call's request would call, one per leaf target of its config. */
export async function hookTargets(resolver: ProviderResolver | undefined, input: HookTargetInput): Promise<CanonicalTarget[]> {
  const header: HeaderProviderSettings = input.headers
    ? headerProviderSettings(input.headers)
    : input.provider
      ? { provider: input.provider }
      : NO_HEADER_PROVIDER;
  const nodes = input.root ? leaves(input.root) : [undefined];
  return Promise.all(
    nodes.map(async (node) => {
      const settings = node?.settings ?? { overrideParams: {} };
      const model = "model" in settings.overrideParams ? settings.overrideParams.model : input.model;
      let named;
      try {
        named = providerNaming(settings, header, model);
      } catch (error) {
        // A malformed `@slug/` name calls nothing; it is matched as written.
        if (!(error instanceof GatewayError)) throw error;
        return canonicalTarget({ kind: "http", name: "" }, model);
      }
      if (named.slug === undefined) {
        const name = named.name ?? "";
        return canonicalTarget({ kind: name === MOCK_PROVIDER ? "mock" : "http", name }, model);
      }
      const found = await resolver?.bySlug(named.slug, input.scope);
      const provider: TargetProvider = found
        ? { ...found, ...(found.kind === "http" && { options: found.options }) }
        : { kind: "http", name: "", slug: named.slug };
      return canonicalTarget({ ...provider, slug: named.slug }, named.model ?? model);
    }),
  );
}
