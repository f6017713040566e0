/**
 * A stand-in for the Hugging Face hub on 127.0.0.1, speaking the paths and headers
 * `huggingface_hub` relies on: `GET /api/models/{repo}/revision/{rev}` answers `{id, sha,
 * siblings: [{rfilename}]}`; `HEAD|GET /{repo}/resolve/{rev}/{path}` answers a plain file with 200,
 * `X-Repo-Commit` and its git blob SHA-1 as ETag, and a large (LFS) file with a 302 to a separate
 * CDN server, `X-Linked-Etag` (its SHA-256) and `X-Linked-Size`. A gated repository answers 401
 * without the right bearer token. Both servers record every request.
 */
import { createHash } from "node:crypto";
import { type LocalServer, startServer } from "./http-server.js";

/** A repository the fake serves: one commit, its branch `main`, and its files. */
export interface FakeRepo {
  id: string;
  commit: string;
  files: Record<string, Buffer>;
  /** Files stored with LFS (served from the CDN). */
  lfs: (path: string) => boolean;
  /** The token a gated repository needs. */
  token?: string;
}

/** The fake hub and its CDN. */
export interface FakeHub {
  hub: LocalServer;
  cdn: LocalServer;
  /** Makes the CDN serve these bytes for a file's blob instead of the true ones. */
  tamper(sha256: string, bytes: Buffer): void;
  close(): Promise<void>;
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const gitBlobSha1 = (bytes: Buffer) => createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");

/** Starts the fake hub serving `repos`. */
export async function startFakeHub(repos: FakeRepo[]): Promise<FakeHub> {
  const blobs = new Map<string, Buffer>();
  const tampered = new Map<string, Buffer>();
  for (const repo of repos) for (const bytes of Object.values(repo.files)) blobs.set(sha256(bytes), bytes);
  const cdn = await startServer((request, response) => {
    const hash = /^\/blobs\/([0-9a-f]{64})$/.exec(request.url)?.[1];
    const bytes = hash && (tampered.get(hash) ?? blobs.get(hash));
    if (!bytes) return response.writeHead(404).end();
    response.writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.length });
    response.end(request.method === "HEAD" ? undefined : bytes);
  });
  const hub = await startServer((request, response) => {
    const url = new URL(request.url, "http://hub");
    const path = decodeURIComponent(url.pathname);
    const api = /^\/api\/models\/([^/]+\/[^/]+)\/revision\/(.+)$/.exec(path);
    const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path);
    const repo = repos.find((r) => r.id === (api?.[1] ?? resolve?.[1]));
    const revision = api?.[2] ?? resolve?.[2];
    const notFound = (code: string) => response.writeHead(404, { "x-error-code": code }).end(JSON.stringify({ error: code }));
    if (!repo) return notFound("RepoNotFound");
    if (repo.token && request.headers.authorization !== `Bearer ${repo.token}`) {
      return response.writeHead(401, { "x-error-code": "GatedRepo" }).end(JSON.stringify({ error: "Access restricted" }));
    }
    if (revision !== "main" && revision !== repo.commit) return notFound("RevisionNotFound");
    if (api) {
      const body = JSON.stringify({
        id: repo.id,
        sha: repo.commit,
        siblings: Object.keys(repo.files).map((rfilename) => ({ rfilename })),
      });
      return response.writeHead(200, { "content-type": "application/json" }).end(body);
    }
    const file = resolve?.[3] as string;
    const bytes = repo.files[file];
    if (!bytes) return notFound("EntryNotFound");
    if (repo.lfs(file)) {
      const hash = sha256(bytes);
      return response
        .writeHead(302, {
          location: `${cdn.origin}/blobs/${hash}`,
          "x-repo-commit": repo.commit,
          "x-linked-etag": `"${hash}"`,
          "x-linked-size": String(bytes.length),
          etag: `"${hash}"`,
        })
        .end();
    }
    response.writeHead(200, {
      "content-length": bytes.length,
      "x-repo-commit": repo.commit,
      etag: `"${gitBlobSha1(bytes)}"`,
    });
    response.end(request.method === "HEAD" ? undefined : bytes);
  });
  return {
    hub,
    cdn,
    tamper: (hash, bytes) => tampered.set(hash, bytes),
    close: async () => {
      await hub.close();
      await cdn.close();
    },
  };
}
