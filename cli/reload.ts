/**
 * `guardgate reload`: asks a running gateway to read its config file again, through
 * `POST /admin/v1/reload`, and prints what changed. It works wherever the gateway runs (another
 * machine, a container, under `npm start`, whose process is npm's and not the gateway's), where a
 * SIGHUP would need the gateway's own process id.
 */
import { describeReload } from "../server/lifecycle/reload.js";
import type { ReloadReport } from "../server/admin/reload-report.js";
import { type CommandArgs, DATA_DIR_FLAG, type Flag, parseCommand, printHelp } from "./args.js";
import type { Command } from "./command.js";
import { AdminClient, API_KEY_FLAG, localAdminKey, URL_FLAG } from "./remote.js";
import { runCommand, UsageError } from "./store-access.js";

/** Where `guardgate serve` listens by default. */
const DEFAULT_URL = "http://127.0.0.1:8787";

const ARGS = {
  usage: ["reload [--url URL] [--api-key KEY] [--data-dir DIR] [--json]"],
  about:
    "Asks the gateway to read its config file (serve --config) again: the file's records replace the ones it\nseeded, in one transaction; a refused file changes nothing. Needs an org admin key of the\norganization the file seeds.",
  flags: {
    url: { ...URL_FLAG, help: `the gateway (default GUARDGATE_URL, else ${DEFAULT_URL})` },
    "api-key": {
      ...API_KEY_FLAG,
      help: "its admin key (default GUARDGATE_API_KEY, else the admin key of the data folder's\ninitial-keys.json)",
    },
    "data-dir": {
      ...DATA_DIR_FLAG,
      help: "where to find initial-keys.json when no key is given (default\nGUARDGATE_DATA_DIR or ./.guardgate)",
    },
    json: { type: "boolean", default: false, help: "print the gateway's report as JSON" },
  },
  positionals: false,
  footer: "Exit status: 0 reloaded, 1 refused or unreachable, 2 usage.",
} as const satisfies CommandArgs<Record<string, Flag>>;

const reload: Command = (argv) =>
  runCommand("reload", async () => {
    const { values, help } = parseCommand(ARGS, argv);
    if (help) return printHelp(ARGS, true);
    const url = values.url ?? (process.env.GUARDGATE_URL || DEFAULT_URL);
    const key = values["api-key"] ?? (process.env.GUARDGATE_API_KEY || localAdminKey(values["data-dir"]));
    if (!key)
      throw new UsageError(
        "reloading needs an org admin key: --api-key KEY, GUARDGATE_API_KEY, or a data folder with initial-keys.json",
      );
    const report = await new AdminClient(url, key).call<ReloadReport>("POST", "/reload");
    if (values.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else process.stdout.write(`${describeReload(report)}\n`);
    return 0;
  });

export default reload;
