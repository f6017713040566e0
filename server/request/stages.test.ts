import { describe, expect, it } from "vitest";
import { StageList } from "./stages.js";

describe("StageList", () => {
  const list = StageList.of<string>()
    .then({ name: "length", run: (text) => text.length })
    .then({ name: "double", run: async (n) => n * 2 })
    .then({ name: "label", run: (n) => `n=${n}` });

  it("walks its stages in order, each taking what the one before it returned", async () => {
    expect(list.names).toEqual(["length", "double", "label"]);
    expect(await list.run("abc")).toBe("n=6");
  });

  it("answers at once when every stage did, and with a promise once one answered with one", async () => {
    const atOnce = StageList.of<string>()
      .then({ name: "length", run: (text) => text.length })
      .then({ name: "label", run: (n) => `n=${n}` });
    expect(atOnce.walk("abcd")).toBe("n=4");
    const later = list.walk("abcd");
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe("n=8");
  });

  it("leaves the list it was made from as it was, so a list made once is shared", async () => {
    const longer = list.then({ name: "shout", run: (text) => text.toUpperCase() });
    expect(list.names).toEqual(["length", "double", "label"]);
    expect(await longer.run("ab")).toBe("N=4");
    expect(await list.run("ab")).toBe("n=4");
  });

  it("stops at a stage that throws, at once or as a rejection, and runs no later stage", async () => {
    const ran: string[] = [];
    const failing = (refuse: (n: number) => number | Promise<number>) =>
      StageList.of<number>()
        .then({ name: "first", run: (n) => (ran.push("first"), n) })
        .then({ name: "refuse", run: refuse })
        .then({ name: "last", run: (n) => (ran.push("last"), n) });
    const atOnce = failing(() => {
      throw new Error("refused at once");
    });
    expect(() => atOnce.walk(1)).toThrow("refused at once");
    // run hands a throw back as a rejection, for a caller that awaits.
    await expect(atOnce.run(1)).rejects.toThrow("refused at once");
    await expect(
      failing(async () => {
        throw new Error("refused later");
      }).run(1),
    ).rejects.toThrow("refused later");
    expect(ran).toEqual(["first", "first", "first"]);
  });

  it("hands back its input when empty", async () => {
    expect(StageList.of<number>().walk(7)).toBe(7);
    expect(await StageList.of<number>().run(7)).toBe(7);
  });
});
