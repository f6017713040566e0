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

  it("leaves the list it was made from as it was, so a list made once is shared", async () => {
    const longer = list.then({ name: "shout", run: (text) => text.toUpperCase() });
    expect(list.names).toEqual(["length", "double", "label"]);
    expect(await longer.run("ab")).toBe("N=4");
    expect(await list.run("ab")).toBe("n=4");
  });

  it("rejects with the error of the stage that threw, and runs no later stage", async () => {
    const ran: string[] = [];
    const failing = StageList.of<number>()
      .then({ name: "first", run: (n) => (ran.push("first"), n) })
      .then({
        name: "refuse",
        run: (): number => {
          throw new Error("refused");
        },
      })
      .then({ name: "last", run: (n) => (ran.push("last"), n) });
    await expect(failing.run(1)).rejects.toThrow("refused");
    expect(ran).toEqual(["first"]);
  });

  it("hands back its input when empty", async () => {
    expect(await StageList.of<number>().run(7)).toBe(7);
  });
});
