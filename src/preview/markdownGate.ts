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
export type GateReason = 'painted' | 'ended' | 'page late' | 'paint late' | 'webview late';

export class MarkdownGate {
  /** Resolves once, with why the `.md` may open now. */
  readonly opened: Promise<GateReason>;
  private resolve!: (why: GateReason) => void;
  private released = false;
  /** The longest wait at all (a webview that never starts, e.g. its group hidden). */
  private limit: ReturnType<typeof setTimeout> | undefined;
  /** The wait for page 1 once the webview is up, then for its paint once it is posted. */
  private step: ReturnType<typeof setTimeout> | undefined;
  private posted = false;

  /**
   * `afterReadyMs`: how long the `.md` waits for page 1 once the webview is up (a slow backend
   * then no longer keeps the `.md` away); `afterPostMs`: how long it waits for page 1's paint once
   * the page is posted; `limitMs`: the longest it waits for the webview or page 1 at all.
   */
  constructor(
    private readonly afterReadyMs = 2000,
    private readonly afterPostMs = 2000,
    limitMs = 10_000,
  ) {
    this.opened = new Promise((r) => (this.resolve = r));
    this.limit = setTimeout(() => this.release('webview late'), limitMs);
  }

  get isReleased(): boolean {
    return this.released;
  }

  /** The webview's script ran: page 1 now has `afterReadyMs` to come (unless it already did). */
  webviewReady(): void {
    if (this.released || this.posted || this.step) return;
    this.step = setTimeout(() => this.release('page late'), this.afterReadyMs);
  }

  /** Page 1 went to the webview: its paint has `afterPostMs` (the other bounds no longer apply). */
  pagePosted(): void {
    if (this.released || this.posted) return;
    this.posted = true;
    clearTimeout(this.limit);
    clearTimeout(this.step);
    this.step = setTimeout(() => this.release('paint late'), this.afterPostMs);
  }

  release(why: GateReason): void {
    if (this.released) return;
    this.released = true;
    clearTimeout(this.limit);
    clearTimeout(this.step);
    this.resolve(why);
  }
}
