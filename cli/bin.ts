#!/usr/bin/env node
/** Entry point of the `guardgate` executable. */
import { main } from "./main.js";

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`guardgate: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
