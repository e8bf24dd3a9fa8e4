/**
 * Scroll sync between the linked view and the `.md` editor, by the regions' Markdown lines (as
 * VS Code's Markdown preview syncs by source lines): the editor's top line maps to a region and how
 * far through its lines it is; the view's top maps to a region and how far down its box it is.
 * Pure functions and the echo guard only; view.ts wires them to the editor and the webview.
 */

/** A linked region's Markdown, in 0-based editor lines (both ends inclusive). */
export interface LineSpan {
  id: string;
  start: number;
  end: number;
}

/**
 * The region the editor's top `line` is in (or, in text no region owns, the next region's start)
 * and the fraction of its lines above `line`. `spans` sorted by `start`.
 */
export function regionAtLine(spans: readonly LineSpan[], line: number): { id: string; fraction: number } | undefined {
  if (!spans.length) return undefined;
  let lo = 0;
  let hi = spans.length - 1;
  let at = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (spans[mid]!.start <= line) {
      at = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (at < 0) return { id: spans[0]!.id, fraction: 0 };
  const s = spans[at]!;
  if (line <= s.end) return { id: s.id, fraction: (line - s.start) / (s.end - s.start + 1) };
  const next = spans[at + 1];
  return next ? { id: next.id, fraction: 0 } : { id: s.id, fraction: 1 };
}

/** The editor line `fraction` of the way through a region's lines. */
export function lineInSpan(span: LineSpan, fraction: number): number {
  const lines = span.end - span.start + 1;
  return Math.min(span.end, span.start + Math.floor(Math.min(1, Math.max(0, fraction)) * lines));
}

/**
 * Tells a scroll the sync itself caused from one the user made, so a synced scroll never echoes
 * back. Not by time alone: on a busy machine the pane's answer can come a second later.
 *  - `moving(line)`: the sync puts the pane's top at `line`; scrolls landing there (±2 lines:
 *    wrapped lines and sticky headings shift VS Code's top line) are its echo until one lands
 *    elsewhere (the user took over) or `settleMs` passed;
 *  - `moving()`: a move to a place not known beforehand (a reveal, centred by VS Code): every
 *    scroll within `revealMs` is its echo.
 */
export class EchoGuard {
  private until = 0;
  private expected: number | undefined;

  constructor(
    private readonly settleMs = 3000,
    private readonly revealMs = 1500,
    private readonly now: () => number = Date.now,
  ) {}

  moving(expected?: number): void {
    this.expected = expected;
    this.until = this.now() + (expected === undefined ? this.revealMs : this.settleMs);
  }

  /** True when a scroll to `at` is the echo of the sync's own move (and should not be followed). */
  isEcho(at: number): boolean {
    if (this.now() > this.until) return false;
    if (this.expected === undefined || Math.abs(at - this.expected) <= 2) return true;
    this.until = 0;
    return false;
  }
}
