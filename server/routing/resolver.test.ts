import { beforeAll, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../index.js";
import { GatewayError } from "../errors.js";
import { InMemoryConfigSource } from "../sources/memory.js";
import type { ConfigRecord, Scope } from "../sources/types.js";
import { RoutingResolver } from "./resolver.js";

let engine: Engine;
const scope = { workspaceId: "team-a" };

beforeAll(async () => {
  engine = await createEngine();
});

/** A config source that counts its reads, and can hold one until told to answer. */
class CountingConfigs extends InMemoryConfigSource {
  reads = 0;
  hold: Promise<void> | undefined;
  override async get(id: string, scope?: Scope): Promise<ConfigRecord | undefined> {
    this.reads++;
    await this.hold;
    return super.get(id, scope);
  }
}

const support: ConfigRecord = { id: "support", config: { retry: { attempts: 2 } }, workspaceId: "team-a" };

describe("RoutingResolver's cache", () => {
  it("answers a routing it has built without a promise, and builds it once", async () => {
    const configs = new CountingConfigs([support]);
    const resolver = new RoutingResolver(engine, configs);
    const first = resolver.resolve("support", scope);
    expect(first).toBeInstanceOf(Promise);
    // Asked again while it is built: the same build, not a second read.
    expect(resolver.resolve("support", scope)).toBe(first);
    const built = await first;
    expect(resolver.resolve("support", scope)).toBe(built);
    expect(built.configId).toBe("support");
    expect(configs.reads).toBe(1);
    expect(resolver.resolve(undefined, scope)).toBe(resolver.resolve("  ", scope));
  });

  it("does not keep a routing built across an invalidation, nor a build that failed", async () => {
    const configs = new CountingConfigs([support]);
    const resolver = new RoutingResolver(engine, configs);
    let answer = (): void => undefined;
    configs.hold = new Promise((resolve) => (answer = resolve));
    const stale = resolver.resolve("support", scope);
    resolver.invalidate();
    configs.set({ ...support, config: { retry: { attempts: 3 } } });
    answer();
    await stale;
    // The build begun before the change stood for the old records: the next request reads them again.
    const fresh = resolver.resolve("support", scope);
    expect(fresh).toBeInstanceOf(Promise);
    expect((await fresh).root.settings.retry?.attempts).toBe(3);
    expect(configs.reads).toBe(2);

    await expect(resolver.resolve("missing", scope)).rejects.toThrow(GatewayError);
    configs.set({ ...support, id: "missing" });
    expect((await resolver.resolve("missing", scope)).configId).toBe("missing");
  });
});
