/**
 * Seeding names a bad record by the config file's own path: a provider's options are `options.X`
 * in the file (`providers[0].options.aws_regoin`), not the admin API's `credentials.options.X`.
 * Seeding runs on a reload without the start-up checks, so it must say so itself.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Management } from "../management/index.js";
import { checkProviderOptions } from "../providers/options.js";
import { type TestPlane, testPlane, tenant } from "../../test/support/management.js";
import { seedFromFile } from "./seed.js";

let plane: TestPlane | undefined;
afterEach(async () => {
  await plane?.close();
  plane = undefined;
});

describe("seedFromFile", () => {
  it("names a provider's bad option by the file's path, for a new provider and an edited one", async () => {
    plane = await testPlane();
    const management = new Management({
      store: plane.store,
      box: plane.box,
      registry: plane.engine.registry,
      checkProviderOptions,
    });
    await tenant(management);
    const provider = (options: Record<string, unknown>) => ({
      providers: [{ slug: "p", provider: "bedrock", options, api_key: "k" }],
    });
    await expect(seedFromFile(management, provider({ aws_regoin: "eu-west-1" }))).rejects.toThrow(
      "config file: providers[0].options.aws_regoin: is not a known key; did you mean aws_region?",
    );
    await seedFromFile(management, provider({ aws_region: "eu-west-1" }));
    const edited = seedFromFile(management, provider({ aws_region: "eu-west-1", aws_regoin: "x" }));
    await expect(edited).rejects.toThrow("config file: providers[0].options.aws_regoin:");
    await expect(edited).rejects.not.toThrow("credentials.options");
    // An unknown kind is named as at start, not by the options it cannot take.
    await expect(seedFromFile(management, { providers: [{ slug: "g", provider: "gemini", options: { x: 1 } }] })).rejects.toThrow(
      'config file: providers[0].provider: "gemini" is not a provider guardgate can call; did you mean google?',
    );
  });
});
