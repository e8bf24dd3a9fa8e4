/**
 * Where a conversion's first page waits on its way to the screen: marks from the command (the
 * backend answering, the PDF open and the view started) through the panel, the webview's script and `ready`, page 1
 * from the backend and posted, to its image painted in the webview. Logged as one line, so a slow
 * first page in the field says which step took the time (docs/preview.md has the measured steps).
 */
export class FirstPaintTrace {
  private readonly marks = new Map<string, number>();
  private done = false;

  /** `t0`: the command's start when known (then the steps before the view's start show too). */
  constructor(
    private readonly name: string,
    private readonly t0 = Date.now(),
  ) {}

  /** Records `what` the first time it happens (ms since the trace began). */
  mark(what: string, at = Date.now()): void {
    if (this.done || this.marks.has(what)) return;
    this.marks.set(what, at - this.t0);
  }

  /** True once the first image was on screen (the trace is logged). */
  get finished(): boolean {
    return this.done;
  }

  has(what: string): boolean {
    return this.marks.has(what);
  }

  /** The first image is on screen: the log line, once (undefined afterwards). */
  painted(page: number, at = Date.now()): string | undefined {
    if (this.done) return undefined;
    this.mark(`page ${page} image painted`, at);
    this.done = true;
    const steps = [...this.marks].map(([what, ms]) => `${what} +${ms} ms`).join(', ');
    const fromBackend = [...this.marks].find(([what]) => what.endsWith('from the backend'))?.[1];
    const after = fromBackend !== undefined ? `; ${at - this.t0 - fromBackend} ms after the backend had the page` : '';
    return `[info] preview: ${this.name}: first page on screen (from the command: ${steps}${after})`;
  }
}
