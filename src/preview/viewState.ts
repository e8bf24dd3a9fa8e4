/**
 * What the parts of one linked view share (view.ts owns it and hands it to each part, as
 * rust-analyzer's `ctx.ts` does): the `.md`, its region map kept in step with the document, the
 * conversion that fills it, and the sidecar that keeps it. The panel (viewPanel.ts), the scroll
 * link (scrollSync.ts), the region edits (regionEdits.ts) and the webview's input (viewInput.ts)
 * read and change it; nothing outside the view sees it.
 */
import * as vscode from 'vscode';
import type { ConvertOptions } from '../../common/protocol';
import type { FolioContext } from '../context';
import { messageOf } from '../../common/errorKinds';
import { RegionMap } from './regionMap';
import { writeSidecar, sidecarOptions, SIDECAR_VERSION, type Sidecar } from './sidecar';
import type { FirstPaintTrace } from './firstPaint';
import type { MarkdownGate } from './markdownGate';

export class ViewState {
  map = new RegionMap();
  pdf: vscode.Uri | undefined;
  options: ConvertOptions = {};
  converting = false;
  /** The running conversion's id (its partial-result token): partials of any other are stale. */
  conversionId: string | undefined;
  /** The backend's count while converting (pages done of the PDF's pages). */
  progress: { done: number; total: number } | undefined;
  /** The running conversion's way to its first page on screen (logged once; firstPaint.ts). */
  trace: FirstPaintTrace | undefined;
  /** Holds the conversion's `.md` editor back until its first page is on screen (markdownGate.ts). */
  mdGate: MarkdownGate | undefined;
  /** How an Office/HTML source is shown, in words (sourceView.ts); sent with every init. */
  sourceNote: string | undefined;
  /** Region last selected in the view or by the `.md` cursor (target of the "Reparse Region" command). */
  selected: string | undefined;
  /** SHA-256 of the `.md` as Folio last wrote it (kept in the sidecar; see commands/convertPdf). */
  writtenHash: string | undefined;
  /** The map's ranges match the document: edits are then followed change by change (`sync`). */
  synced = true;
  /** Until then a conversion's last write may still reach the document (`sync`). */
  settleUntil = 0;
  private persistTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly mdUri: vscode.Uri,
    readonly ctx: FolioContext,
  ) {}

  get key(): string {
    return this.mdUri.toString();
  }

  get name(): string {
    return this.mdUri.path.split('/').pop() ?? this.key;
  }

  hasPages(): boolean {
    return this.map.allPages().length > 0;
  }

  document(): vscode.TextDocument | undefined {
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === this.key);
  }

  documentVersion(): number {
    return this.document()?.version ?? 0;
  }

  /**
   * Re-anchors the map on the document's text. While the converter is still appending (or just
   * finished) the map counts as synced only when every region was found; afterwards edits are
   * followed change by change.
   */
  sync(): void {
    const doc = this.document();
    if (!doc) return;
    if (this.synced) this.map.captureTexts(doc.getText());
    const wanted = this.map.allRegions().filter((r) => r.text).length;
    const linked = this.map.anchor(doc.getText());
    if (this.map.lastAnchorSkipped > 0)
      this.ctx.output.appendLine(
        `[warning] preview: ${this.map.lastAnchorSkipped} regions of ${this.name} were not searched for in the Markdown (too much work: is its .folio.json Folio's?)`,
      );
    this.synced = linked === wanted || (!this.converting && Date.now() > this.settleUntil);
  }

  // ------------------------------------------------------------ sidecar

  persist(): void {
    clearTimeout(this.persistTimer);
    this.persistTimer = setTimeout(() => this.persistNow(), 300);
  }

  persistNow(): void {
    clearTimeout(this.persistTimer);
    if (!this.pdf || !this.hasPages()) return;
    const doc = this.document();
    if (doc && this.synced) this.map.captureTexts(doc.getText());
    // Only how the text was read goes into the sidecar; folders come from the configuration.
    const data: Sidecar = {
      folio: SIDECAR_VERSION,
      pdf: this.pdf.toString(),
      options: sidecarOptions(this.options),
      pages: this.map.allPages(),
      ...(this.writtenHash ? { mdSha256: this.writtenHash } : {}),
    };
    writeSidecar(this.mdUri, data).catch((e: unknown) =>
      this.ctx.output.appendLine(`[warning] preview: could not write the sidecar of ${this.name}: ${messageOf(e)}`),
    );
  }

  dispose(): void {
    this.mdGate?.release('ended');
    clearTimeout(this.persistTimer);
  }
}
