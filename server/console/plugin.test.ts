import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Fastify from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { CONSOLE_CSP, consolePlugin } from "./plugin.js";

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

async function serve(files: Record<string, string>) {
  const dir = mkdtempSync(path.join(tmpdir(), "guardgate-console-"));
  folders.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  const app = Fastify();
  await app.register(consolePlugin, { dir });
  return app;
}

describe("the console's files", () => {
  it("serves the page, its hashed assets and nothing else, every answer under the policy", async () => {
    const app = await serve({
      "index.html": "<!doctype html><title>x</title>",
      "assets/index-abc.js": "export {};",
      "assets/index-abc.css": "body{}",
      "assets/index-abc.js.map": "{}",
    });
    const root = await app.inject("/");
    expect(root.statusCode).toBe(302);
    expect(root.headers.location).toBe("/console/");
    const redirect = await app.inject("/console");
    expect(redirect.statusCode).toBe(301);
    expect(redirect.headers.location).toBe("/console/");
    const page = await app.inject("/console/");
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["cache-control"]).toBe("no-cache");
    expect(page.headers["content-security-policy"]).toBe(CONSOLE_CSP);
    expect(page.headers["x-frame-options"]).toBe("DENY");
    const css = await app.inject("/console/assets/index-abc.css");
    expect(css.headers["content-type"]).toBe("text/css; charset=utf-8");
    expect(css.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    // Only the files read at start-up are served: an encoded climb out of the folder names none.
    const climb = await app.inject("/console/..%2f..%2fpackage.json");
    expect(climb.statusCode).toBe(404);
    expect(climb.body).toBe("/console/../../package.json is not a file of the console");
    const missing = await app.inject("/console/assets/index-abc.js.map");
    expect(missing.statusCode).toBe(404);
    expect(missing.headers["x-content-type-options"]).toBe("nosniff");
    await app.close();
  });

  it("answers 503 saying how to build it when the console was not built", async () => {
    const app = await serve({});
    const answer = await app.inject("/console/");
    expect(answer.statusCode).toBe(503);
    expect(answer.body).toBe("the console is not built: run npm run build");
    await app.close();
  });
});
