// Runs independent checks side by side, as many at once as there are cores, so `npm run lint`
// takes about as long as its slowest check rather than their sum (each of eslint, prettier and tsc
// keeps one core busy). Each command's output is printed whole when it ends, never interleaved;
// the exit code is non-zero when any command failed, and every command runs to its end either way.
//
//   node scripts/run-all.mjs "tsc -p tsconfig.test.json" "eslint ." "prettier --check ."
//
// Plain JavaScript because it runs before anything is compiled.
import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";

const commands = process.argv.slice(2);
if (commands.length === 0) {
  process.stderr.write('usage: node scripts/run-all.mjs "COMMAND" ["COMMAND" ...]\n');
  process.exit(2);
}

/** Runs one command in a shell (npm puts node_modules/.bin on the PATH); resolves with its exit code. */
function run(command) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, { shell: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding("utf8");
      stream.on("data", (chunk) => (output += chunk));
    }
    child.on("error", (error) => (output += `${error.message}\n`));
    child.on("close", (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const status = code === 0 ? "ok" : `failed (${signal ?? `exit ${code}`})`;
      process.stdout.write(`> ${command}: ${status} in ${seconds} s\n`);
      process.stdout.write(output);
      resolve(code ?? 1);
    });
  });
}

const queue = [...commands];
let failed = 0;
async function worker() {
  for (let command = queue.shift(); command !== undefined; command = queue.shift()) if ((await run(command)) !== 0) failed++;
}
await Promise.all(Array.from({ length: Math.min(availableParallelism(), commands.length) }, worker));
process.exit(failed > 0 ? 1 : 0);
