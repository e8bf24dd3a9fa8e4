/**
 * One converted `.md` and its linked view: the region map, the webview (a panel, or the `folio.pdf`
 * custom editor, which hosts the same view), the link between them, and the sidecar. Conversion
 * events fill the map page by page; document changes move its ranges; webview messages become
 * editor selections and region edits. The manager (manager.ts) drives it through its methods.
 *
 * `LinkedView` keeps the conversion's events and the document's; the rest is split by concern over
 * one shared `ViewState` (viewState.ts: the map, document sync, sidecar): the panel and what is
 * sent to it (viewPanel.ts), the webview's messages (viewInput.ts), scroll sync and reveals
 * (scrollSync.ts `ScrollLink`), and region edits, the view's side of a reparse (regionEdits.ts).
 */
import * as vscode from 'vscode';
import type { ConvertOptions, PagePartialParams, PageResult } from '../../common/protocol';
import type { FolioContext } from '../context';
import { RegionMap, type MappedPage } from './regionMap';
import { FirstPaintTrace } from './firstPaint';
import { ViewState } from './viewState';
import { ViewPanel } from './viewPanel';
import { ScrollLink } from './scrollSync';
import { RegionEdits } from './regionEdits';
import { ViewInput } from './viewInput';

export class LinkedView implements vscode.Disposable {
  private readonly s: ViewState;
  private readonly panel: ViewPanel;
  private readonly scroll: ScrollLink;
  private readonly edits: RegionEdits;
  private readonly input: ViewInput;
  /** The panel was opened by `prepare` and no page is in yet: it closes if the conversion ends without one. */
  private early = false;

  constructor(
    readonly mdUri: vscode.Uri,
    ctx: FolioContext,
  ) {
    this.s = new ViewState(mdUri, ctx);
    // Messages arrive once the panel is attached, after this constructor.
    this.panel = new ViewPanel(this.s, (m) => this.input.onMessage(m));
    this.scroll = new ScrollLink(this.s, this.panel);
    this.edits = new RegionEdits(this.s, this.panel, this.scroll);
    this.input = new ViewInput(this.s, this.panel, this.scroll, this.edits);
  }

  get key(): string {
    return this.s.key;
  }

  get name(): string {
    return this.s.name;
  }

  get pdfUri(): vscode.Uri | undefined {
    return this.s.pdf;
  }

  /** The region last selected in the view, if it still exists. */
  get selectedRegion(): string | undefined {
    const id = this.s.selected;
    return id && this.s.map.region(id) ? id : undefined;
  }

  /** True when the view's webview is the focused editor. */
  get isActive(): boolean {
    return this.panel.isActive;
  }

  get hasPanel(): boolean {
    return this.panel.exists;
  }

  /** The editor group the view is in. */
  get viewColumn(): vscode.ViewColumn | undefined {
    return this.panel.viewColumn;
  }

  /** sourceView.ts: the view's note, and slide images to show (kept in the sidecar). */
  showSource(note: string | undefined, images?: ReadonlyMap<number, Partial<MappedPage>>, send = true): void {
    this.s.sourceNote = note;
    for (const [n, img] of images ?? []) Object.assign(this.s.map.page(n) ?? {}, img);
    if (images?.size) this.s.persist();
    if (send) this.panel.sendInit();
  }

  hasPages(): boolean {
    return this.s.hasPages();
  }

  /** The region whose Markdown holds `offset` of the `.md`. */
  regionIdAt(offset: number): string | undefined {
    return this.s.map.regionAt(offset)?.id;
  }

  /** "Folio: Reparse Region" on `id` (reparse.ts), with the region's box and class as they are. */
  reparse(id: string): Promise<void> {
    return this.edits.reparse(id);
  }

  // ------------------------------------------------------------ conversion

  /**
   * The command knows the PDF and this `.md`, before the backend is asked: a view without a panel
   * opens one now (the "Loading the view…" / "Opening the PDF…" frame), so VS Code's webview start
   * overlaps the backend's start and page 1. A view already on screen waits for `start`.
   */
  prepare(pdfUri: vscode.Uri, column: vscode.ViewColumn, commandAt: number): void {
    if (this.panel.exists) return;
    const s = this.s;
    s.map = new RegionMap();
    s.pdf = pdfUri;
    s.converting = true;
    s.progress = undefined;
    this.panel.newConversion();
    s.trace = new FirstPaintTrace(pdfUri.path.split('/').pop() ?? this.name, commandAt);
    s.trace.mark('view opened (before the backend)');
    this.early = true;
    this.panel.show(column, true);
    this.panel.sendInit();
  }

  /**
   * The conversion ended without a summary (an error, no password): a view with no page closes
   * (no empty pane left behind); one with pages keeps them and says the conversion stopped.
   */
  fail(message: string): void {
    const s = this.s;
    this.early = false;
    s.mdGate?.release('ended');
    if (!s.converting) return;
    s.converting = false;
    s.progress = undefined;
    s.conversionId = undefined;
    if (!this.hasPages()) {
      s.ctx.output.appendLine(`[info] preview: ${this.name}: no page converted (${message}); the view closes`);
      this.panel.close();
      return;
    }
    this.panel.post({ type: 'finished', cancelled: true, pagesDone: s.map.allPages().length });
    this.panel.post({ type: 'status', level: 'error', text: `The conversion stopped: ${message}` });
    s.persistNow();
  }

  start(
    pdfUri: vscode.Uri,
    options: ConvertOptions,
    conversionId?: string,
    timing?: { commandAt: number; backendAt: number },
  ): void {
    const s = this.s;
    s.conversionId = conversionId;
    s.mdGate?.release('ended');
    s.mdGate = undefined;
    this.panel.dropSharp();
    this.edits.cancelAll();
    s.map = new RegionMap();
    s.pdf = pdfUri;
    s.options = options;
    s.converting = true;
    s.synced = false;
    s.progress = undefined;
    this.panel.newConversion();
    // The trace `prepare` began (its panel already starting) goes on; otherwise a new one.
    if (!this.early || !s.trace || s.trace.finished)
      s.trace = new FirstPaintTrace(pdfUri.path.split('/').pop() ?? this.name, timing?.commandAt);
    if (timing) s.trace.mark('backend answered', timing.backendAt);
    s.trace.mark('PDF open (view started)');
    if (this.panel.exists) s.trace.mark('panel there');
    this.panel.sendInit();
  }

  /** The backend's count: `done` pages of `total` (0 of N once the PDF is open). */
  progress(done: number, total: number): void {
    if (!this.s.converting) return;
    this.s.progress = { done, total };
    this.panel.post({ type: 'progress', done, total });
  }

  addPage(page: PageResult, mdOffset: number): void {
    if (!this.hasPages()) {
      this.early = false;
      this.s.trace?.mark(`page ${page.page} from the backend`);
      this.panel.firstPage(page.page);
    }
    this.s.map.addPage(page, mdOffset);
    this.s.synced = false;
    this.s.sync();
    // Send the new page now; the other pages (whose links a re-anchor may have changed) in one
    // debounced pass, so a long document does not cost a full refresh per page.
    this.panel.refresh([page.page]);
    this.panel.scheduleRefresh(300);
  }

  /**
   * A page the VLM is still writing. Dropped when it is not this conversion's, or its page is
   * already in (the final page supersedes it); the webview drops older ones again by `seq`.
   */
  partial(conversionId: string, p: PagePartialParams): void {
    const s = this.s;
    if (!s.converting || conversionId !== s.conversionId || s.map.page(p.page)) return;
    this.panel.post({ type: 'partial', conversion: conversionId, page: p.page, seq: p.seq, markdown: p.markdown });
  }

  finish(cancelled: boolean, pagesDone: number, writtenHash?: string): void {
    const s = this.s;
    // With pages, the `.md` still waits for the first one's paint (a one-page PDF ends with it).
    if (!this.hasPages() || s.trace?.finished) s.mdGate?.release('ended');
    // Cancelled before any page: the view opened for it would stay an empty pane; it closes.
    if (this.early && !this.hasPages()) {
      this.early = false;
      s.converting = false;
      this.panel.close();
      return;
    }
    this.early = false;
    s.converting = false;
    s.progress = undefined;
    s.conversionId = undefined;
    if (writtenHash) s.writtenHash = writtenHash;
    // The converter's last write may reach the open document after this event.
    s.settleUntil = Date.now() + 3000;
    s.sync();
    this.panel.refresh();
    this.panel.post({ type: 'finished', cancelled, pagesDone });
    s.persistNow();
  }

  /** Restores from a sidecar; ranges are re-anchored by content against the current `.md`. */
  restore(pdf: string, options: ConvertOptions, pages: MappedPage[], writtenHash?: string): void {
    const s = this.s;
    s.map = new RegionMap();
    for (const p of pages) s.map.restorePage(p);
    s.pdf = vscode.Uri.parse(pdf);
    s.options = options;
    s.writtenHash = writtenHash;
    s.converting = false;
    s.synced = false;
    s.settleUntil = 0;
    s.sync();
  }

  /** A view opened on a PDF that has no Markdown yet (the `folio.pdf` editor): only its PDF is known. */
  setPdf(pdfUri: vscode.Uri): void {
    if (!this.s.pdf) this.s.pdf = pdfUri;
  }

  // ------------------------------------------------------------ document and editor

  onDocumentChange(e: vscode.TextDocumentChangeEvent): void {
    if (this.s.synced) for (const c of e.contentChanges) this.s.map.applyChange(c);
    else this.s.sync();
    this.panel.scheduleRefresh();
  }

  onDocumentOpened(): void {
    if (!this.s.synced) this.s.sync();
    this.panel.scheduleRefresh();
  }

  /** Editor cursor moved: highlight the region under it. */
  onSelection(offset: number): void {
    this.scroll.onSelection(offset);
  }

  /** The `.md` editor's top line moved: the view follows (scrollSync.ts). */
  onEditorScrolled(doc: vscode.TextDocument, topLine: number): void {
    this.scroll.onEditorScrolled(doc, topLine);
  }

  // ------------------------------------------------------------ webview (viewPanel.ts)

  /** Shows the view in its own panel (created on first use) in `column`. */
  show(column: vscode.ViewColumn, preserveFocus: boolean): void {
    this.panel.show(column, preserveFocus);
  }

  /** Hosts the view in `panel` (a new panel, a restored one, or the `folio.pdf` custom editor's). */
  attach(panel: vscode.WebviewPanel): void {
    this.panel.attach(panel);
  }

  sendInit(): void {
    this.panel.sendInit();
  }

  /** Resolves when the `.md` editor may open beside the view (viewPanel.ts says when). */
  markdownMayOpen(): Promise<boolean> {
    return this.panel.markdownMayOpen();
  }

  persistNow(): void {
    this.s.persistNow();
  }

  dispose(): void {
    this.s.dispose();
    this.edits.cancelAll();
    this.panel.dispose();
  }
}
