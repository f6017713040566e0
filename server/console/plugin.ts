/**
 * The browser console at `/console`: the static files `npm run build` writes to `dist/console`,
 * read once at start-up and served from memory with their content types, long caching for the
 * content-hashed assets, and a strict Content-Security-Policy (no inline scripts or styles, no
 * framing, requests to this origin only). The console itself speaks only the admin API.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply } from "fastify";

/** Where the console is served. */
export const CONSOLE_PREFIX = "/console";

/** The policy every console answer carries: this origin's scripts, styles and API only. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json; charset=utf-8",
};

interface Asset {
  body: Buffer;
  type: string;
}

/** Options of the console plugin. */
export interface ConsoleOptions {
  /** The built console; `dist/console` of the package by default. */
  dir?: string;
}

/** The package's built console, found from this module whether it runs from source or from `dist`. */
export function defaultConsoleDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "package.json"))) {
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return path.join(dir, "dist", "console");
}

function readAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (folder: string, prefix: string) => {
    for (const name of readdirSync(folder)) {
      const file = path.join(folder, name);
      if (statSync(file).isDirectory()) walk(file, `${prefix}${name}/`);
      else {
        const type = TYPES[path.extname(name)];
        // Source maps and anything else unlisted stay unserved.
        if (type) assets.set(`${prefix}${name}`, { body: readFileSync(file), type });
      }
    }
  };
  if (existsSync(path.join(dir, "index.html"))) walk(dir, "");
  return assets;
}

function secure(reply: FastifyReply): FastifyReply {
  return reply
    .header("content-security-policy", CONSOLE_CSP)
    .header("x-content-type-options", "nosniff")
    .header("x-frame-options", "DENY")
    .header("referrer-policy", "no-referrer")
    .header("cross-origin-opener-policy", "same-origin");
}

/** Registers `GET /console` and its assets, and `GET /` leading there. */
export async function consolePlugin(app: FastifyInstance, options: ConsoleOptions = {}): Promise<void> {
  const dir = options.dir ?? defaultConsoleDir();
  const assets = readAssets(dir);

  const send = (reply: FastifyReply, name: string) => {
    const asset = assets.get(name);
    if (!asset) {
      const message = assets.size
        ? `${CONSOLE_PREFIX}/${name} is not a file of the console`
        : "the console is not built: run npm run build";
      return secure(reply)
        .code(assets.size ? 404 : 503)
        .type("text/plain; charset=utf-8")
        .send(message);
    }
    // Hashed assets never change under their name; the page itself is always revalidated.
    const immutable = name.startsWith("assets/");
    return secure(reply)
      .header("cache-control", immutable ? "public, max-age=31536000, immutable" : "no-cache")
      .type(asset.type)
      .send(asset.body);
  };

  // A person who opens the gateway's address in a browser finds the console (not permanent: the
  // root may answer something else one day).
  app.get("/", (_request, reply) => reply.redirect(`${CONSOLE_PREFIX}/`, 302));
  app.get(CONSOLE_PREFIX, (_request, reply) => reply.redirect(`${CONSOLE_PREFIX}/`, 301));
  app.get(`${CONSOLE_PREFIX}/`, (_request, reply) => send(reply, "index.html"));
  app.get(`${CONSOLE_PREFIX}/*`, (request, reply) => {
    const name = (request.params as { "*": string })["*"];
    return send(reply, name);
  });
}
