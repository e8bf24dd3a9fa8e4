/**
 * A one-line progress bar on a terminal; on a pipe or file, nothing but the notes. Used by
 * `folio convert` in-process (server/cli) and through the queue (server/queue).
 */
import type { WriteStream } from 'node:tty';

export class ProgressLine {
  private shown = false;

  constructor(
    private readonly out: NodeJS.WriteStream | WriteStream,
    private readonly enabled: boolean,
  ) {}

  update(label: string, done: number, total: number): void {
    if (!this.enabled) return;
    const width = 24;
    const filled = total > 0 ? Math.round((done / total) * width) : 0;
    const bar = '█'.repeat(filled) + '░'.repeat(width - filled);
    const cols = (this.out as WriteStream).columns ?? 80;
    const line = `${bar} ${done}/${total} ${label}`.slice(0, cols - 1);
    this.out.write(`\r\x1b[2K${line}`);
    this.shown = true;
  }

  /** Prints a whole line (on `stream`, default the progress stream), keeping the bar below it. */
  note(line: string, stream: NodeJS.WriteStream = this.out as NodeJS.WriteStream): void {
    if (this.shown) {
      this.out.write('\r\x1b[2K');
      this.shown = false;
    }
    stream.write(line + '\n');
  }

  done(): void {
    if (this.shown) this.out.write('\r\x1b[2K');
    this.shown = false;
  }
}
