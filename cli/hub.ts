/**
 * A client of the Hugging Face hub's download paths, as `huggingface_hub` uses them: the revision
 * API (`GET /api/models/{repo}/revision/{rev}`: the commit sha and the file list) and the resolve
 * path (`/{repo}/resolve/{commit}/{file}`), whose HEAD answers with `X-Repo-Commit` and an ETag
 * (the git blob SHA-1 of a plain file), or, for a large (LFS) file, a redirect to a CDN with
 * `X-Linked-Etag` (its SHA-256) and `X-Linked-Size`. Every call goes through the outbound policy
 * of core/net: size caps, time limits, and private addresses refused unless allowed.
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { once } from "node:events";
import { type CheckSettings, GuardgateError, outboundRequest } from "../core/index.js";

/** The public hub, when neither `--endpoint` nor `HF_ENDPOINT` names a mirror. */
export const DEFAULT_HUB = "https://huggingface.co";

/** The hub said no, or answered what a hub does not. */
export class HubError extends GuardgateError {
  constructor(message: string) {
    super("model_invalid", message);
  }
}

/** How to reach a hub. */
export interface HubOptions {
  endpoint: string;
  /** Sent as `Authorization: Bearer` to the hub's own origin only, never to a CDN it redirects to. */
  token?: string;
  settings: CheckSettings;
  /** Largest file accepted, in bytes. */
  maxFileBytes: number;
  /** Time limit of one call (a whole file's download), in milliseconds. */
  timeout: number;
}

/** A revision resolved to its commit, with the repository's files at that commit. */
export interface ResolvedRevision {
  commit: string;
  files: string[];
}

const COMMIT = /^[0-9a-f]{40}$/;
const API_MAX_BYTES = 16 * 1024 * 1024;

const base = (options: HubOptions) => options.endpoint.replace(/\/+$/, "");
const encodePath = (file: string) => file.split("/").map(encodeURIComponent).join("/");
const unquote = (etag: string) => etag.replace(/^W\//, "").replace(/^"|"$/g, "");

function authHeaders(options: HubOptions): Record<string, string> {
  return options.token ? { authorization: `Bearer ${options.token}` } : {};
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function refusal(status: number, what: string): HubError {
  if (status === 401 || status === 403) {
    return new HubError(
      `${what}: the hub answered ${status}: the repository is gated or private; set HF_TOKEN to a token with access`,
    );
  }
  if (status === 404) return new HubError(`${what}: the hub answered 404: no such repository, revision or file`);
  return new HubError(`${what}: the hub answered ${status}`);
}

/** Resolves `revision` (a branch, tag or commit) of a model repository to its commit sha and files. */
export async function resolveRevision(repo: string, revision: string, options: HubOptions): Promise<ResolvedRevision> {
  const url = `${base(options)}/api/models/${encodePath(repo)}/revision/${encodeURIComponent(revision)}`;
  const what = `${repo} at ${revision}`;
  const response = await outboundRequest(url, {
    headers: { accept: "application/json", ...authHeaders(options) },
    timeout: Math.min(options.timeout, 60_000),
    maxResponseBytes: API_MAX_BYTES,
    maxRedirects: 5,
    settings: options.settings,
  });
  if (response.status !== 200) throw refusal(response.status, what);
  let info: { sha?: unknown; siblings?: unknown };
  try {
    info = JSON.parse(response.body.toString("utf8")) as typeof info;
  } catch {
    throw new HubError(`${what}: the revision API did not answer JSON`);
  }
  if (typeof info.sha !== "string" || !COMMIT.test(info.sha)) {
    throw new HubError(`${what}: the revision API's answer has no 40-hex "sha"`);
  }
  const siblings = Array.isArray(info.siblings) ? info.siblings : [];
  const files = siblings.map((s) => (s as { rfilename?: unknown })?.rfilename).filter((f): f is string => typeof f === "string");
  return { commit: info.sha, files };
}

/** What a file's HEAD said: where its bytes are, and the hash they must have. */
interface FileInfo {
  url: string;
  /** SHA-256 (an LFS file) or git blob SHA-1 (a plain file), hex. */
  etag: string;
  size?: number;
  /** Whether `url` is on the hub's own origin (the token may go there). */
  sameOrigin: boolean;
}

async function fileInfo(repo: string, commit: string, file: string, options: HubOptions): Promise<FileInfo> {
  const url = `${base(options)}/${encodePath(repo)}/resolve/${commit}/${encodePath(file)}`;
  // Same-origin redirects (a renamed repository) are followed; a redirect elsewhere is the CDN
  // holding a large file's bytes, which is read from the answer rather than followed.
  const head = await outboundRequest(url, {
    method: "HEAD",
    headers: { "accept-encoding": "identity", ...authHeaders(options) },
    timeout: Math.min(options.timeout, 60_000),
    maxResponseBytes: API_MAX_BYTES,
    maxRedirects: 5,
    readBody: false,
    settings: options.settings,
  });
  const what = `${repo}/${file} at ${commit}`;
  const redirected = head.status >= 300 && head.status < 400;
  if (head.status !== 200 && !redirected) throw refusal(head.status, what);
  const served = header(head.headers, "x-repo-commit");
  if (served !== undefined && served !== commit) {
    throw new HubError(`${what}: the hub served commit ${served}, not the pinned ${commit}`);
  }
  const etag = header(head.headers, "x-linked-etag") ?? header(head.headers, "etag");
  if (!etag) throw new HubError(`${what}: the hub's answer has no ETag to verify the file against`);
  const sizeHeader = header(head.headers, "x-linked-size") ?? header(head.headers, "content-length");
  const size = sizeHeader === undefined ? undefined : Number(sizeHeader);
  if (size !== undefined && size > options.maxFileBytes) {
    throw new HubError(`${what}: ${size} bytes, over the limit of ${options.maxFileBytes} bytes (--max-file-mb)`);
  }
  if (!redirected) return { url: head.url, etag: unquote(etag), ...(size !== undefined && { size }), sameOrigin: true };
  const location = header(head.headers, "location");
  if (!location) throw new HubError(`${what}: the hub redirected (${head.status}) without a Location`);
  const target = new URL(location, head.url);
  return {
    url: target.href,
    etag: unquote(etag),
    ...(size !== undefined && { size }),
    sameOrigin: target.origin === new URL(head.url).origin,
  };
}

/** The git blob SHA-1 of a file: what the hub's ETag of a plain (non-LFS) file is. */
async function gitBlobSha1(file: string, size: number): Promise<string> {
  const hash = createHash("sha1").update(`blob ${size}\0`);
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** A downloaded and verified file. */
export interface FetchedFile {
  size: number;
  sha256: string;
}

/**
 * Downloads one file of the pinned commit to `dest` (through a `.partial` file, renamed only once
 * verified) and checks it against the hub's ETag: SHA-256 for an LFS file, git blob SHA-1 for a
 * plain one. `progress` hears the bytes received so far and the expected size, when known.
 */
export async function fetchFile(
  repo: string,
  commit: string,
  file: string,
  dest: string,
  options: HubOptions,
  progress: (received: number, size: number | undefined) => void,
): Promise<FetchedFile> {
  const info = await fileInfo(repo, commit, file, options);
  const partial = `${dest}.partial`;
  const out = createWriteStream(partial, { mode: 0o644 });
  const sha256 = createHash("sha256");
  let received = 0;
  try {
    const response = await outboundRequest(info.url, {
      headers: { "accept-encoding": "identity", ...(info.sameOrigin && authHeaders(options)) },
      timeout: options.timeout,
      maxResponseBytes: options.maxFileBytes,
      maxRedirects: 5,
      settings: options.settings,
      sink: async (chunk) => {
        sha256.update(chunk);
        received += chunk.byteLength;
        progress(received, info.size);
        if (!out.write(chunk)) await once(out, "drain");
      },
    });
    out.end();
    await once(out, "finish");
    const what = `${repo}/${file} at ${commit}`;
    if (response.status !== 200) throw refusal(response.status, what);
    if (info.size !== undefined && received !== info.size) {
      throw new HubError(`${what}: received ${received} bytes, the hub announced ${info.size}`);
    }
    const digest = sha256.digest("hex");
    const expected = info.etag.toLowerCase();
    const actual = expected.length === 64 ? digest : expected.length === 40 ? await gitBlobSha1(partial, received) : undefined;
    if (actual === undefined) throw new HubError(`${what}: the ETag "${info.etag}" is neither a SHA-256 nor a git blob SHA-1`);
    if (actual !== expected) {
      throw new HubError(`${what}: the bytes received hash to ${actual}, the hub's ETag says ${expected}: refused`);
    }
    await rename(partial, dest);
    return { size: received, sha256: digest };
  } catch (error) {
    out.destroy();
    await rm(partial, { force: true });
    throw error;
  }
}
