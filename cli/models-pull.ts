/**
 * `guardgate models pull REPO`: downloads a model folder for `model.classifier` from the Hugging
 * Face hub or a mirror, pins the revision to its commit, verifies every file against the hub's
 * hash, writes the lock file (plugins/model/shared/model-lock.ts) that every later load checks,
 * prints the lock's SHA-256 for the config file to pin, and ends with `models inspect` on the folder.
 *
 * The files are gathered in a hidden folder beside the destination and renamed into place only
 * once all are verified and locked: a pull that fails or is interrupted leaves no folder a check
 * could load, and an earlier pull at the destination is kept until the new one is complete.
 */
import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { type CommandArgs, type Flag, helpOf, parseCommand, printHelp } from "./args.js";
import { DEFAULT_HUB, fetchFile, type HubOptions, resolveRevision } from "./hub.js";
import { type LockedFile, lockSha256, MODEL_LOCK_FILE, type ModelLock } from "../plugins/model/shared/model-lock.js";
import { type CheckSettings, GuardgateError, outboundUrlProblem } from "../core/index.js";
import { UsageError } from "./usage-error.js";

const ARGS = {
  usage: ["models pull REPO [--revision REV] [--file PATH[=NAME]]... [--out DIR] [--endpoint URL]"],
  about:
    "Downloads a text-classification model exported to ONNX from the Hugging Face hub (or the mirror\nnamed by --endpoint or HF_ENDPOINT) into a folder model.classifier can load. HF_TOKEN, when set,\nis sent as a bearer token to the hub (for gated models), never to the CDN it redirects to, and\nnever printed. The folder appears only once complete; the lock file's SHA-256 is printed, to pin\nas models.NAME.lock_sha256 in the gateway config file.",
  entries: { REPO: "the repository, owner/name (e.g. protectai/deberta-v3-base-prompt-injection-v2)" },
  flags: {
    revision: {
      type: "string",
      value: "REV",
      default: "main",
      help: "branch, tag or commit (default main); pinned to its commit",
    },
    file: {
      type: "string",
      multiple: true,
      value: "PATH[=NAME]",
      help: "a file of the repository to fetch, stored as NAME (default: its base name); may be repeated.\nWithout it: model.onnx and the config.json, tokenizer.json, tokenizer_config.json and\nspecial_tokens_map.json beside it (else at the top of the repository)",
    },
    out: { type: "string", value: "DIR", help: "the folder to write (default models/NAME, NAME the repository's name)" },
    endpoint: {
      type: "string",
      value: "URL",
      help: "the hub or a mirror (default HF_ENDPOINT, else https://huggingface.co); a mirror named\nhere may be on a private or loopback address",
    },
    "allow-private": {
      type: "boolean",
      help: "let downloads reach private and loopback addresses (refused by default, whatever the\nhub redirects to)",
    },
    "max-file-mb": { type: "string", value: "N", help: "largest file accepted, in MB (default 4096)" },
    "no-inspect": { type: "boolean", help: "skip `models inspect` on the folder at the end" },
  },
  footer:
    "Exit status: 0 pulled, verified and inspected; 1 the hub refused, a file did not match its hash, or the\nfolder does not load; 2 bad usage.",
} as const satisfies CommandArgs<Record<string, Flag>>;

/** Files a model folder holds besides model.onnx, fetched when no --file is given. */
const FOLDER_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"];
const REQUIRED = ["model.onnx", "config.json", "tokenizer.json"];
const REPO = /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/;

/** A repository file to fetch and the name it gets in the folder. */
interface Wanted {
  path: string;
  file: string;
}

/** The files to fetch: the ones named, or the model folder the repository holds. */
export function chooseFiles(available: readonly string[], named: readonly string[] | undefined): Wanted[] {
  const present = new Set(available);
  let wanted: Wanted[];
  if (named && named.length > 0) {
    wanted = named.map((spec) => {
      const [file = "", name] = spec.split("=", 2);
      if (!present.has(file))
        throw new GuardgateError("model_invalid", `--file ${file}: not a file of the repository at this revision`);
      const local = name ?? path.posix.basename(file);
      if (!local || local !== path.basename(local) || local.startsWith(".")) {
        throw new UsageError(`--file ${spec}: "${local}" is not a plain file name`);
      }
      return { path: file, file: local };
    });
  } else {
    const onnx = ["model.onnx", "onnx/model.onnx"].find((f) => present.has(f));
    if (!onnx) {
      const exports = available.filter((f) => f.endsWith(".onnx"));
      throw new GuardgateError(
        "model_invalid",
        `the repository holds no model.onnx or onnx/model.onnx${exports.length ? ` (ONNX files: ${exports.join(", ")}); name one with --file PATH=model.onnx` : "; it has no ONNX export"}`,
      );
    }
    const dir = path.posix.dirname(onnx);
    wanted = [{ path: onnx, file: "model.onnx" }];
    for (const name of FOLDER_FILES) {
      const beside = dir === "." ? name : `${dir}/${name}`;
      const found = [beside, name].find((f) => present.has(f));
      if (found) wanted.push({ path: found, file: name });
    }
  }
  const names = wanted.map((w) => w.file);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new UsageError(`two files would be stored as ${twice}: give one of them another name with PATH=NAME`);
  const missing = REQUIRED.filter((n) => !names.includes(n));
  if (missing.length) {
    throw new GuardgateError(
      "model_invalid",
      `the files chosen leave the folder without ${missing.join(", ")} (a model folder holds model.onnx, config.json and tokenizer.json)`,
    );
  }
  return wanted;
}

/** A name for the folder under `models:` in the config file: the repository's name, in the characters a name may hold. */
function modelName(repo: string): string {
  return (repo.split("/")[1] as string).replace(/[^A-Za-z0-9_.-]/g, "-").replace(/^[^A-Za-z0-9]+/, "") || "model";
}

/** A byte count for people. */
function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

/** Progress on stderr: one redrawn line per file on a terminal, a line per finished file otherwise. */
function progressWriter(tty: boolean) {
  let last = 0;
  return {
    receiving(label: string, received: number, size: number | undefined) {
      if (!tty) return;
      const now = Date.now();
      if (now - last < 100 && received !== size) return;
      last = now;
      const share = size ? ` ${Math.floor((100 * received) / size)}%` : "";
      process.stderr.write(`\r\x1b[2K${label}  ${bytes(received)}${size ? ` of ${bytes(size)}` : ""}${share}`);
    },
    done(line: string) {
      process.stderr.write(`${tty ? "\r\x1b[2K" : ""}${line}\n`);
    },
  };
}

/**
 * Moves the complete folder `staging` to `out`. rename(2) replaces an empty folder or none; a
 * folder of an earlier pull is moved aside first and removed once the new one is in place.
 */
async function publish(staging: string, out: string): Promise<void> {
  try {
    await rename(staging, out);
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
  }
  const earlier = `${staging}.earlier`;
  await rename(out, earlier);
  await rename(staging, out);
  await rm(earlier, { recursive: true, force: true });
}

/** The command; resolves to the exit code. */
export async function pull(argv: string[], inspect: (dir: string) => Promise<number>): Promise<number> {
  try {
    const { values, positionals, help } = parseCommand(ARGS, argv);
    if (help) return printHelp(ARGS, true);
    const [repo, ...extra] = positionals;
    if (!repo || extra.length) throw new UsageError("expected: models pull REPO");
    if (!REPO.test(repo)) throw new UsageError(`"${repo}" is not a repository name (owner/name)`);
    const explicit = values.endpoint;
    const endpoint = explicit ?? process.env.HF_ENDPOINT ?? DEFAULT_HUB;
    const problem = outboundUrlProblem(endpoint);
    if (problem) throw new UsageError(`the endpoint ${endpoint} ${problem}`);
    const maxMb = values["max-file-mb"] === undefined ? 4096 : Number(values["max-file-mb"]);
    if (!Number.isFinite(maxMb) || maxMb <= 0) throw new UsageError("--max-file-mb must be a positive number");
    const revision = values.revision ?? "main";
    const out = path.resolve(values.out ?? path.join("models", repo.split("/")[1] as string));
    // A mirror the user names on the command line is one they chose to trust, loopback or not;
    // one from the environment, and whatever a hub redirects to, are held to the public policy.
    const settings: CheckSettings = {
      ...(values["allow-private"] && { allowPrivateAddresses: true }),
      ...(explicit !== undefined && { internalHosts: [new URL(explicit).hostname] }),
      refusalAdvice: "give --allow-private to reach a private address, or name the mirror with --endpoint",
    };
    const token = process.env.HF_TOKEN || undefined;
    const options: HubOptions = {
      endpoint,
      ...(token && { token }),
      settings,
      maxFileBytes: Math.floor(maxMb * 1024 * 1024),
      timeout: 60 * 60_000,
    };

    const resolved = await resolveRevision(repo, revision, options);
    const wanted = chooseFiles(resolved.files, values.file);
    process.stderr.write(`${repo} at ${revision}: commit ${resolved.commit}; ${wanted.length} files into ${out}\n`);
    await mkdir(path.dirname(out), { recursive: true });
    // Not mkdtemp: its 0700 would become the folder's, which a gateway of another user must read.
    const staging = path.join(path.dirname(out), `.${path.basename(out)}.pulling-${randomBytes(6).toString("hex")}`);
    await mkdir(staging);
    let lockText: string;
    try {
      const progress = progressWriter(process.stderr.isTTY === true);
      const files: LockedFile[] = [];
      for (const [index, want] of wanted.entries()) {
        const label = `[${index + 1}/${wanted.length}] ${want.path}`;
        const fetched = await fetchFile(
          repo,
          resolved.commit,
          want.path,
          path.join(staging, want.file),
          options,
          (received, size) => progress.receiving(label, received, size),
        );
        progress.done(`${label}  ${bytes(fetched.size)}  sha256 ${fetched.sha256}`);
        files.push({ path: want.path, file: want.file, size: fetched.size, sha256: fetched.sha256 });
      }
      const lock: ModelLock = { version: 1, repo, revision, commit: resolved.commit, endpoint, files };
      lockText = `${JSON.stringify(lock, null, 2)}\n`;
      await writeFile(path.join(staging, MODEL_LOCK_FILE), lockText);
      await publish(staging, out);
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      throw error;
    }
    const pin = lockSha256(lockText);
    process.stderr.write(
      `pinned ${repo} at ${resolved.commit} in ${path.join(out, MODEL_LOCK_FILE)}, whose SHA-256 is ${pin}\n` +
        `declare the folder with its lock pinned, so a changed lock is refused too:\n` +
        `  models:\n    ${modelName(repo)}:\n      path: ${out}\n      lock_sha256: ${pin}\n`,
    );
    return values["no-inspect"] ? 0 : await inspect(out);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      process.stderr.write(`guardgate models: ${(error as Error).message}\n${helpOf(ARGS)}\n`);
      return 2;
    }
    if (error instanceof GuardgateError) {
      process.stderr.write(`guardgate models: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
