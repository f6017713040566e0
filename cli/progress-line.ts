/**
 * Progress of a long command on stderr: on a terminal one bar redrawn about a hundred times in
 * all (a redraw per row would cost more than a fast check); elsewhere a line each time another
 * tenth of the work is done. The percentage is the share done, rounded down, whichever is shown.
 */
export interface ProgressLine {
  update(done: number, total: number): void;
  /** Shows a line of its own in the bar's place, on a terminal only (work before the counted part). */
  note(text: string): void;
  /** Ends a drawn bar with its newline; safe to call more than once. */
  end(): void;
}

const BAR_WIDTH = 30;

/** A progress line: `barLabel` heads the terminal's bar ("evaluating"), `lineLabel` each plain line ("evaluated"). */
export function progressLine(tty: boolean, barLabel: string, lineLabel: string): ProgressLine {
  let lastTenth = -1;
  let drawn = false;
  return {
    update(done, total) {
      const share = total ? Math.min(1, done / total) : 1;
      const counts = `${done}/${total} (${Math.floor(share * 100)}%)`;
      if (tty) {
        if (done !== total && done % Math.max(1, Math.floor(total / 100)) !== 0) return;
        const filled = Math.round(share * BAR_WIDTH);
        process.stderr.write(`\r\x1b[2K${barLabel} [${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}] ${counts}`);
        drawn = true;
        return;
      }
      const tenth = Math.floor(share * 10);
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      process.stderr.write(`${lineLabel} ${counts}\n`);
    },
    note(text) {
      if (!tty) return;
      process.stderr.write(`\r${text}`);
      drawn = true;
    },
    end() {
      if (drawn) process.stderr.write("\n");
      drawn = false;
    },
  };
}
