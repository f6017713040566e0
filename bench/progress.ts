/** A progress line on stderr: rewritten in place on a terminal, one line per step otherwise. */
export class Progress {
  readonly #total: number;
  readonly #started = performance.now();
  #done = 0;

  constructor(total: number) {
    this.#total = total;
  }

  /** Announces the next step. */
  step(label: string): void {
    this.#done++;
    const percent = Math.floor((100 * (this.#done - 1)) / this.#total);
    const seconds = ((performance.now() - this.#started) / 1000).toFixed(0);
    const line = `[${String(this.#done).padStart(String(this.#total).length)}/${this.#total}] ${String(percent).padStart(3)}% ${seconds}s  ${label}`;
    if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K${line}`);
    else process.stderr.write(`${line}\n`);
  }

  /** Ends the progress line. */
  finish(message: string): void {
    const seconds = ((performance.now() - this.#started) / 1000).toFixed(0);
    process.stderr.write(`${process.stderr.isTTY ? "\r\x1b[2K" : ""}${message} (${seconds}s)\n`);
  }
}
