import { describe, expect, it } from "vitest";
import { TokenCache } from "./token-cache.js";

describe("the token cache", () => {
  it("shares one fetch among concurrent calls and keeps its token until renewal is due", async () => {
    const cache = new TokenCache(10);
    let fetches = 0;
    const fetch = async () => ({ token: `t${++fetches}`, renewAt: 1_000 });
    expect(await Promise.all([cache.get("a", fetch, 0), cache.get("a", fetch, 0)])).toEqual(["t1", "t1"]);
    expect(await cache.get("a", fetch, 999)).toBe("t1");
    expect(await cache.get("a", fetch, 1_000)).toBe("t2");
    expect(fetches).toBe(2);
  });

  it("lets a failed fetch fail its callers and the next call try again", async () => {
    const cache = new TokenCache(10);
    await expect(cache.get("a", () => Promise.reject(new Error("denied")), 0)).rejects.toThrow("denied");
    expect(await cache.get("a", async () => ({ token: "ok", renewAt: 10 }), 0)).toBe("ok");
  });

  it("stays within its bound: tokens due go first, then the oldest", async () => {
    const cache = new TokenCache(2);
    let fetches = 0;
    const token = (renewAt: number) => async () => ({ token: `t${++fetches}`, renewAt });
    await cache.get("due", token(5), 0);
    await cache.get("kept", token(100), 0);
    await cache.get("new", token(100), 10);
    expect(await cache.get("kept", token(100), 10)).toBe("t2");
    await cache.get("newest", token(100), 10);
    // "kept" was the oldest left: it was dropped and is fetched again.
    expect(await cache.get("kept", token(100), 10)).toBe("t5");
  });
});
