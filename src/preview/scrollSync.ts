/**
 * Scroll sync between the linked view and the `.md` editor, by the regions' Markdown lines (as
 * VS Code's Markdown preview syncs by source lines): the editor's top line maps to a region and how
 * far through its lines it is; the view's top maps to a region and how far down its box it is.
 * The pure functions and the echo guard (unit-tested) come first; `ScrollLink` (view.ts's scroll
 * part) wires them to the editor and the webview, with the cursor's highlight and the reveal of a
 * region the user picked in the view.
 */
import * as vscode from 'vscode';
import type { ViewPanel } from './viewPanel';
import type { ViewState } from './viewState';

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

/** `folio.preview.scrollEditorWithView` / `scrollViewWithEditor` (default on, read at each scroll). */
function scrollSetting(name: 'scrollEditorWithView' | 'scrollViewWithEditor', scope: vscode.Uri): boolean {
  return vscode.workspace.getConfiguration('folio.preview', scope).get<boolean>(name, true);
}

/** The `.md` editor and the view, kept at the same region: scrolls, the cursor's highlight, reveals. */
export class ScrollLink {
  private lastHighlight: string | undefined;
  /** Editor scrolls the view made (sync, reveal) are not followed back. */
  private readonly editorEcho = new EchoGuard();

  constructor(
    private readonly s: ViewState,
    private readonly panel: ViewPanel,
  ) {}

  /** Editor cursor moved: highlight the region under it. */
  onSelection(offset: number): void {
    const r = this.s.map.regionAt(offset);
    if (r?.id === this.lastHighlight) return;
    this.lastHighlight = r?.id;
    if (r) this.s.selected = r.id;
    this.panel.post({ type: 'highlight', regionId: r?.id, reveal: true });
  }

  /** The region just drawn in the view becomes the selection, ready to adjust or delete. */
  highlightDrawn(id: string): void {
    this.lastHighlight = id;
    this.panel.post({ type: 'highlight', regionId: id, reveal: false });
  }

  /** The user picked a region in the view: the `.md` editor selects its Markdown. */
  async reveal(id: string, focus: boolean): Promise<void> {
    const s = this.s;
    s.selected = id;
    const r = s.map.region(id);
    if (!r?.range) {
      this.panel.post({
        type: 'status',
        level: 'info',
        text: `Region ${id} has no Markdown in ${s.name} (reparse it to write some).`,
      });
      return;
    }
    const doc = await vscode.workspace.openTextDocument(s.mdUri);
    const range = new vscode.Range(doc.positionAt(r.range.start), doc.positionAt(r.range.end));
    let editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === s.key);
    if (!editor || focus) {
      const column = editor?.viewColumn ?? this.editorColumn();
      editor = await vscode.window.showTextDocument(doc, { viewColumn: column, preserveFocus: !focus, preview: false });
    }
    this.lastHighlight = id;
    // The editor scrolls to the region the user picked in the view: the view does not follow it back.
    this.editorEcho.moving();
    editor.selection = new vscode.Selection(range.start, range.end);
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  /** Linked regions' Markdown as editor lines, in line order. */
  private lineSpans(doc: vscode.TextDocument): LineSpan[] {
    const spans: LineSpan[] = [];
    for (const r of this.s.map.allRegions()) {
      if (!r.range) continue;
      const start = doc.positionAt(r.range.start).line;
      spans.push({
        id: r.id,
        start,
        end: Math.max(start, doc.positionAt(Math.max(r.range.start, r.range.end - 1)).line),
      });
    }
    return spans.sort((a, b) => a.start - b.start);
  }

  /** The `.md` editor's top line moved: the view follows, unless the sync or a reveal moved it. */
  onEditorScrolled(doc: vscode.TextDocument, topLine: number): void {
    const s = this.s;
    if (!this.panel.exists || this.editorEcho.isEcho(topLine)) return;
    // Until a conversion's first page is on screen the view stays at its top: the `.md`'s scroll
    // then is VS Code restoring the old file's position, and following it would make the first
    // image a page deep in the document, fetched the slow way (not inline) by a webview still starting.
    if (s.converting && s.trace && !s.trace.finished) return;
    if (!scrollSetting('scrollViewWithEditor', s.mdUri)) return;
    const at = regionAtLine(this.lineSpans(doc), topLine);
    if (at) this.panel.post({ type: 'scrollTo', regionId: at.id, fraction: at.fraction });
  }

  /** The user scrolled the view: the `.md` editor (when visible) puts the matching line at its top. */
  onViewScrolled(regionId: string, fraction: number): void {
    if (!scrollSetting('scrollEditorWithView', this.s.mdUri)) return;
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === this.s.key);
    if (!editor) return;
    const span = this.lineSpans(editor.document).find((sp) => sp.id === regionId);
    if (!span) return;
    const line = lineInSpan(span, fraction);
    this.editorEcho.moving(line);
    editor.revealRange(new vscode.Range(line, 0, line, 0), vscode.TextEditorRevealType.AtTop);
  }

  /** The group beside the view, where the `.md` belongs when it is not open. */
  private editorColumn(): vscode.ViewColumn {
    const pc = this.panel.viewColumn;
    return pc ? ((pc + 1) as vscode.ViewColumn) : vscode.ViewColumn.Beside;
  }
}
