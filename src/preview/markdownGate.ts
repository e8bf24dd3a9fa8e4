/**
 * When a conversion's `.md` editor opens beside its view: after the view's first page is on
 * screen, not before the webview has started.
 *
 * Why (measured in code-server, docs/preview.md "First page"): showing a `.md` makes the
 * workbench load the Markdown grammar and every grammar it embeds (about 60 files, each one
 * request to the server), and a browser sends at most 6 requests at a time to one host. VS Code's
 * webview start in code-server waits for a request to that same host (its service worker's
 * `registration.update()`: code-server's own service worker already controls the webview's frame),
 * and Folio's script and styles come the same way; behind those 60 requests the first webview in a
 * window took 5–7 s to start on a loaded machine, against under a second without them.
 *
 * Pure timers, no `vscode` import (unit-tested: test/preview/markdownGate.test.ts).
 */
export type GateReason = 'painted' | 'ended' | 'page late' | 'webview late';

export class MarkdownGate {
  /** Resolves once, with why the `.md` may open now. */
  readonly opened: Promise<GateReason>;
  private resolve!: (why: GateReason) => void;
  private released = false;
  private readonly timers: ReturnType<typeof setTimeout>[] = [];

  /**
   * `afterReadyMs`: how long the `.md` waits for the first page once the webview is up (a slow
   * backend then no longer keeps the `.md` away); `limitMs`: the longest it waits at all (a webview
   * that never starts, e.g. its group hidden).
   */
  constructor(
    private readonly afterReadyMs = 2000,
    limitMs = 10_000,
  ) {
    this.opened = new Promise((r) => (this.resolve = r));
    this.timers.push(setTimeout(() => this.release('webview late'), limitMs));
  }

  get isReleased(): boolean {
    return this.released;
  }

  /** The webview's script ran: the page now has `afterReadyMs` to be painted. */
  webviewReady(): void {
    if (!this.released && this.timers.length === 1)
      this.timers.push(setTimeout(() => this.release('page late'), this.afterReadyMs));
  }

  release(why: GateReason): void {
    if (this.released) return;
    this.released = true;
    for (const t of this.timers) clearTimeout(t);
    this.resolve(why);
  }
}
