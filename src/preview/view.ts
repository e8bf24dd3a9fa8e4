/**
 * One converted `.md` and its linked view: the region map, the webview (a panel, or the `folio.pdf`
 * custom editor, which hosts the same view), the link between them, and the sidecar. Conversion
 * events fill the map page by page; document changes move its ranges; webview messages become
 * editor selections and region edits. All state is private: the manager (manager.ts) drives it
 * through its methods, and a reparse (reparse.ts) through the narrow `ReparseTarget` interface.
 */
import * as vscode from 'vscode';
import {
  type BBox,
  type ConvertOptions,
  type PagePartialParams,
  type PageResult,
  type RegionClass,
} from '../../common/protocol';
import {
  isStale,
  parseViewMessage,
  type HostMessageBody,
  type PageView,
  type ViewMessage,
} from '../../common/viewMessages';
import type { FolioContext } from '../context';
import { convert } from '../convertClient';
import { previewHtml, previewResourceRoots } from './html';
import { gridOf, RegionMap, type MappedPage } from './regionMap';
import { writeSidecar, sidecarOptions, SIDECAR_VERSION, type Sidecar } from './sidecar';
import { isInside } from '../../common/safeWrite';
import { readFileSync, statSync } from 'node:fs';
import { deleteRegion, reparseRegion, type RegionSnapshot, type ReparseTarget } from './reparse';
import { planReparse, type ReparseContext, type ReparsePlan } from './reparsePlan';
import { messageOf } from '../../common/errorKinds';
import { FirstPaintTrace } from './firstPaint';
import { pageViewOf } from './pageView';
import { MarkdownGate } from './markdownGate';
import { EchoGuard, lineInSpan, regionAtLine, type LineSpan } from './scrollSync';

/** `folio.preview.scrollEditorWithView` / `scrollViewWithEditor` (default on, read at each scroll). */
function scrollSetting(name: 'scrollEditorWithView' | 'scrollViewWithEditor', scope: vscode.Uri): boolean {
  return vscode.workspace.getConfiguration('folio.preview', scope).get<boolean>(name, true);
}

export const PREVIEW_VIEW_TYPE = 'folio.preview';

export class LinkedView implements vscode.Disposable, ReparseTarget {
  private map = new RegionMap();
  private pdf: vscode.Uri | undefined;
  private options: ConvertOptions = {};
  private converting = false;
  /** The running conversion's id (its partial-result token): partials of any other are stale. */
  private conversionId: string | undefined;
  private panel: vscode.WebviewPanel | undefined;
  /** Reparses in flight, by region id; a newer one cancels the older. */
  private readonly inflight = new Map<string, vscode.CancellationTokenSource>();
  /** Region last selected in the view (target of the "Reparse Region" command). */
  private selected: string | undefined;
  /** Password the PDF needed for a reparse (kept for this view only). */
  private password: string | undefined;
  /** SHA-256 of the `.md` as Folio last wrote it (kept in the sidecar; see commands/convertPdf). */
  private writtenHash: string | undefined;
  private synced = true;
  private settleUntil = 0;
  private sentVersion = -1;
  private readonly lastSent = new Map<number, string>();
  private lastHighlight: string | undefined;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private persistTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly panelSubs: vscode.Disposable[] = [];
  /** Sharper page images rendered for zoom (`sharpen`), by page: kept for this view only, not in the sidecar. */
  private readonly sharp = new Map<number, { scale: number; image: string; width?: number; height?: number }>();
  private sharpening: vscode.CancellationTokenSource | undefined;
  /** The running conversion's way to its first page on screen (logged once; firstPaint.ts). */
  private trace: FirstPaintTrace | undefined;
  /** The backend's count while converting (pages done of the PDF's pages). */
  private progressState: { done: number; total: number } | undefined;
  /** The conversion's first page, sent with its image inline until it is on screen (see `inlineImage`). */
  private inlinePage: number | undefined;
  private inlined: { path: string; data: string } | undefined;
  /** When the conversion's first page went to the webview (`firstPaintHold`). */
  private firstPostedAt: number | undefined;
  /** The panel was opened by `prepare` and no page is in yet: it closes if the conversion ends without one. */
  private early = false;
  /** Holds the conversion's `.md` editor back until its first page is on screen (markdownGate.ts). */
  private mdGate: MarkdownGate | undefined;
  /** The panel's webview has run its script (`ready`). */
  private webviewUp = false;
  /** Editor scrolls the view made (sync, reveal) are not followed back (scrollSync.ts). */
  private readonly editorEcho = new EchoGuard();
  /** How an Office/HTML source is shown, in words (sourceView.ts); sent with every init. */
  private sourceNote: string | undefined;

  constructor(
    readonly mdUri: vscode.Uri,
    private readonly ctx: FolioContext,
  ) {}

  get key(): string {
    return this.mdUri.toString();
  }

  get name(): string {
    return this.mdUri.path.split('/').pop() ?? this.key;
  }

  get pdfUri(): vscode.Uri | undefined {
    return this.pdf;
  }

  /** The region last selected in the view, if it still exists. */
  get selectedRegion(): string | undefined {
    return this.selected && this.map.region(this.selected) ? this.selected : undefined;
  }

  /** True when the view's webview is the focused editor. */
  get isActive(): boolean {
    return !!this.panel?.active;
  }

  get hasPanel(): boolean {
    return !!this.panel;
  }

  /** The editor group the view is in. */
  get viewColumn(): vscode.ViewColumn | undefined {
    return this.panel?.viewColumn;
  }

  /** sourceView.ts: the view's note, and slide images to show (kept in the sidecar). */
  showSource(note: string | undefined, images?: ReadonlyMap<number, Partial<MappedPage>>, send = true): void {
    this.sourceNote = note;
    for (const [n, img] of images ?? []) Object.assign(this.map.page(n) ?? {}, img);
    if (images?.size) this.persist();
    if (send) this.sendInit();
  }

  hasPages(): boolean {
    return this.map.allPages().length > 0;
  }

  /** The region whose Markdown holds `offset` of the `.md`. */
  regionIdAt(offset: number): string | undefined {
    return this.map.regionAt(offset)?.id;
  }

  private document(): vscode.TextDocument | undefined {
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === this.key);
  }

  documentVersion(): number {
    return this.document()?.version ?? 0;
  }

  // ------------------------------------------------------------ conversion

  /**
   * The command knows the PDF and this `.md`, before the backend is asked: a view without a panel
   * opens one now (the "Loading the view…" / "Opening the PDF…" frame), so VS Code's webview start
   * overlaps the backend's start and page 1. A view already on screen waits for `start`.
   */
  prepare(pdfUri: vscode.Uri, column: vscode.ViewColumn, commandAt: number): void {
    if (this.panel) return;
    this.map = new RegionMap();
    this.lastSent.clear();
    this.pdf = pdfUri;
    this.converting = true;
    this.progressState = undefined;
    this.inlinePage = undefined;
    this.firstPostedAt = undefined;
    this.trace = new FirstPaintTrace(pdfUri.path.split('/').pop() ?? this.name, commandAt);
    this.trace.mark('view opened (before the backend)');
    this.early = true;
    this.show(column, true);
    this.sendInit();
  }

  /**
   * The conversion ended without a summary (an error, no password): a view with no page closes
   * (no empty pane left behind); one with pages keeps them and says the conversion stopped.
   */
  fail(message: string): void {
    this.early = false;
    this.mdGate?.release('ended');
    if (!this.converting) return;
    this.converting = false;
    this.progressState = undefined;
    this.conversionId = undefined;
    if (!this.hasPages()) {
      this.ctx.output.appendLine(`[info] preview: ${this.name}: no page converted (${message}); the view closes`);
      this.panel?.dispose();
      return;
    }
    this.post({ type: 'finished', cancelled: true, pagesDone: this.map.allPages().length });
    this.post({ type: 'status', level: 'error', text: `The conversion stopped: ${message}` });
    this.persistNow();
  }

  start(
    pdfUri: vscode.Uri,
    options: ConvertOptions,
    conversionId?: string,
    timing?: { commandAt: number; backendAt: number },
  ): void {
    this.conversionId = conversionId;
    this.mdGate?.release('ended');
    this.mdGate = undefined;
    this.sharpening?.cancel();
    this.sharp.clear();
    for (const c of this.inflight.values()) c.cancel();
    this.inflight.clear();
    this.map = new RegionMap();
    this.pdf = pdfUri;
    this.options = options;
    this.converting = true;
    this.synced = false;
    this.lastSent.clear();
    this.progressState = undefined;
    this.inlinePage = undefined;
    this.firstPostedAt = undefined;
    // The trace `prepare` began (its panel already starting) goes on; otherwise a new one.
    if (!this.early || !this.trace || this.trace.finished)
      this.trace = new FirstPaintTrace(pdfUri.path.split('/').pop() ?? this.name, timing?.commandAt);
    if (timing) this.trace.mark('backend answered', timing.backendAt);
    this.trace.mark('PDF open (view started)');
    if (this.panel) this.trace.mark('panel there');
    this.sendInit();
  }

  /** The backend's count: `done` pages of `total` (0 of N once the PDF is open). */
  progress(done: number, total: number): void {
    if (!this.converting) return;
    this.progressState = { done, total };
    this.post({ type: 'progress', done, total });
  }

  addPage(page: PageResult, mdOffset: number): void {
    if (!this.hasPages()) {
      this.early = false;
      this.trace?.mark(`page ${page.page} from the backend`);
      this.inlinePage = page.page;
    }
    this.map.addPage(page, mdOffset);
    this.synced = false;
    this.trySync();
    // Send the new page now; the other pages (whose links a re-anchor may have changed) in one
    // debounced pass, so a long document does not cost a full refresh per page.
    this.refresh([page.page]);
    this.scheduleRefresh(300);
  }

  /**
   * A page the VLM is still writing. Dropped when it is not this conversion's, or its page is
   * already in (the final page supersedes it); the webview drops older ones again by `seq`.
   */
  partial(conversionId: string, p: PagePartialParams): void {
    if (!this.converting || conversionId !== this.conversionId || this.map.page(p.page)) return;
    this.post({ type: 'partial', conversion: conversionId, page: p.page, seq: p.seq, markdown: p.markdown });
  }

  finish(cancelled: boolean, pagesDone: number, writtenHash?: string): void {
    // With pages, the `.md` still waits for the first one's paint (a one-page PDF ends with it).
    if (!this.hasPages() || this.trace?.finished) this.mdGate?.release('ended');
    // Cancelled before any page: the view opened for it would stay an empty pane; it closes.
    if (this.early && !this.hasPages()) {
      this.early = false;
      this.converting = false;
      this.panel?.dispose();
      return;
    }
    this.early = false;
    this.converting = false;
    this.progressState = undefined;
    this.conversionId = undefined;
    if (writtenHash) this.writtenHash = writtenHash;
    // The converter's last write may reach the open document after this event.
    this.settleUntil = Date.now() + 3000;
    this.trySync();
    this.refresh();
    this.post({ type: 'finished', cancelled, pagesDone });
    this.persistNow();
  }

  /** Restores from a sidecar; ranges are re-anchored by content against the current `.md`. */
  restore(pdf: string, options: ConvertOptions, pages: MappedPage[], writtenHash?: string): void {
    this.map = new RegionMap();
    for (const p of pages) this.map.restorePage(p);
    this.pdf = vscode.Uri.parse(pdf);
    this.options = options;
    this.writtenHash = writtenHash;
    this.converting = false;
    this.synced = false;
    this.settleUntil = 0;
    this.trySync();
  }

  /** A view opened on a PDF that has no Markdown yet (the `folio.pdf` editor): only its PDF is known. */
  setPdf(pdfUri: vscode.Uri): void {
    if (!this.pdf) this.pdf = pdfUri;
  }

  // ------------------------------------------------------------ document

  onDocumentChange(e: vscode.TextDocumentChangeEvent): void {
    if (this.synced) for (const c of e.contentChanges) this.map.applyChange(c);
    else this.trySync();
    this.scheduleRefresh();
  }

  onDocumentOpened(): void {
    if (!this.synced) this.trySync();
    this.scheduleRefresh();
  }

  /**
   * Re-anchors the map on the document's text. While the converter is still appending (or just
   * finished) the map counts as synced only when every region was found; afterwards edits are
   * followed change by change.
   */
  private trySync(): void {
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

  // ------------------------------------------------------------ webview

  /** Shows the view in its own panel (created on first use) in `column`. */
  show(column: vscode.ViewColumn, preserveFocus: boolean): void {
    if (this.panel) {
      this.panel.reveal(undefined, preserveFocus);
      return;
    }
    this.webviewUp = false;
    const panel = vscode.window.createWebviewPanel(
      PREVIEW_VIEW_TYPE,
      this.title(),
      { viewColumn: column, preserveFocus },
      {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: previewResourceRoots(this.ctx.extension.extensionUri, this.ctx.cacheDir),
      },
    );
    this.trace?.mark('panel created');
    this.attach(panel);
  }

  /** Hosts the view in `panel` (a new panel, a restored one, or the `folio.pdf` custom editor's). */
  attach(panel: vscode.WebviewPanel): void {
    if (this.panel && this.panel !== panel) this.panel.dispose();
    this.panel = panel;
    panel.title = this.title();
    panel.webview.options = {
      enableScripts: true,
      localResourceRoots: previewResourceRoots(this.ctx.extension.extensionUri, this.ctx.cacheDir),
    };
    this.lastSent.clear();
    this.panelSubs.push(
      panel.webview.onDidReceiveMessage((m: unknown) => this.onViewMessage(m)),
      panel.onDidDispose(() => {
        if (this.panel === panel) this.panel = undefined;
        for (const s of this.panelSubs.splice(0)) s.dispose();
        this.mdGate?.release('ended');
      }),
    );
    panel.webview.html = previewHtml(panel.webview, this.ctx.extension.extensionUri, this.key);
  }

  /**
   * Resolves when the `.md` editor may open beside the view: at once, unless this view's
   * conversion is still on its way to its first page; then after that page is painted (bounded,
   * markdownGate.ts says why). False when the view closed meanwhile (a conversion that ended with
   * no page leaves no `.md` tab either).
   */
  async markdownMayOpen(): Promise<boolean> {
    if (this.converting && this.panel && this.trace && !this.trace.finished) {
      if (!this.mdGate) {
        this.mdGate = new MarkdownGate();
        if (this.trace.has('first page posted')) this.mdGate.pagePosted();
        else if (this.webviewUp) this.mdGate.webviewReady();
      }
      const why = await this.mdGate.opened;
      this.trace?.mark(`.md shown (${why})`); // in the trace line only when it came before the page
    }
    return !!this.panel;
  }

  private title(): string {
    const pdf = this.pdf?.path.split('/').pop();
    return pdf ? `${pdf} ⇄ ${this.name}` : `Folio ${this.name}`;
  }

  private post(m: HostMessageBody): void {
    if (!this.panel) return;
    const version = this.documentVersion();
    this.sentVersion = version;
    void this.panel.webview.postMessage({ ...m, uri: this.key, version });
  }

  sendInit(): void {
    if (!this.panel) return;
    this.panel.title = this.title();
    const text = this.document()?.getText();
    const pages = this.map.allPages().map((p) => this.pageView(p, text));
    this.lastSent.clear();
    for (const p of pages) this.lastSent.set(p.page, JSON.stringify(p));
    const hasMarkdown = pages.length > 0 || this.converting;
    this.post({
      type: 'init',
      title: this.title(),
      pdfUri: this.pdf?.toString() ?? '',
      pages,
      converting: this.converting,
      conversion: this.converting ? this.conversionId : undefined,
      ...(this.converting && this.progressState ? { progress: this.progressState } : {}),
      ...(hasMarkdown ? {} : { notConverted: true }),
      sourceNote: this.sourceNote,
    });
  }

  private scheduleRefresh(ms = 60): void {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => this.refresh(), ms);
  }

  /**
   * How long a conversion's other pages wait behind its first page, from the moment that page is
   * posted until the webview says it is painted: each page message costs the webview's main
   * thread its Markdown, and a 300-page cold view painted page 1 a second late behind them.
   * Bounded, since a hidden view never paints.
   */
  private static readonly FIRST_PAINT_HOLD_MS = 1500;

  /** Milliseconds the other pages still wait for the first page's paint (0: none). */
  private firstPaintHold(): number {
    if (this.inlinePage === undefined || !this.trace || this.trace.finished) return 0;
    this.firstPostedAt ??= Date.now(); // posted with the init: the hold starts now
    return Math.max(0, this.firstPostedAt + LinkedView.FIRST_PAINT_HOLD_MS - Date.now());
  }

  /** Sends the pages (all, or `only`) whose view changed since last sent. */
  private refresh(only?: number[]): void {
    if (!only) clearTimeout(this.refreshTimer);
    if (!this.panel) return;
    const text = this.document()?.getText();
    let pages = only ? only.map((n) => this.map.page(n)).filter((p): p is MappedPage => !!p) : this.map.allPages();
    const hold = this.firstPaintHold();
    if (hold > 0 && pages.some((p) => p.page !== this.inlinePage)) {
      pages = pages.filter((p) => p.page === this.inlinePage);
      this.scheduleRefresh(hold);
    }
    for (const p of pages) {
      const view = this.pageView(p, text);
      const json = JSON.stringify(view);
      if (this.lastSent.get(p.page) === json) continue;
      this.lastSent.set(p.page, json);
      this.post({ type: 'page', page: view });
      if (this.trace && !this.trace.has('first page posted')) {
        this.trace.mark('first page posted');
        this.firstPostedAt = Date.now();
        this.mdGate?.pagePosted();
      }
    }
  }

  private pageView(p: MappedPage, text = this.document()?.getText()): PageView {
    const sharp = this.sharp.get(p.page);
    const path = sharp?.image ?? p.image;
    const image = path && this.panel ? this.imageSrc(path) : undefined;
    const inline = image && !sharp && p.page === this.inlinePage ? this.inlineImage(path!) : undefined;
    return pageViewOf(p, text, {
      imageSrc: image,
      imageData: inline,
      imageWidth: sharp?.width,
      imageHeight: sharp?.height,
    });
  }

  /**
   * A conversion's first page image as a data URL, until it is on screen: the webview then shows
   * it without fetching it through its resource loader, which on a window's first view took
   * seconds (docs/preview.md, "First page"). One page, ≤ 6 MB, read once.
   */
  private inlineImage(path: string): string | undefined {
    if (!this.trace || this.trace.finished || !/\.png$/i.test(path)) return undefined;
    if (this.inlined?.path === path) return this.inlined.data;
    try {
      if (statSync(path).size > 6 * 1024 * 1024) return undefined;
      this.inlined = { path, data: `data:image/png;base64,${readFileSync(path).toString('base64')}` };
      return this.inlined.data;
    } catch {
      return undefined; // the webview loads it the usual way
    }
  }

  private imageSrc(path: string): string | undefined {
    const uri = vscode.Uri.file(path);
    const cache = this.ctx.cacheDir.fsPath;
    // Normalized first: `<cache>/../x.png` starts with the cache's path but is not inside it.
    // localResourceRoots would refuse it anyway; saying so in the log is kinder.
    if (!isInside(cache, uri.fsPath) || uri.fsPath === cache) {
      this.ctx.output.appendLine(
        `[warning] preview: page image ${path} is outside the cache folder ${cache}; not shown`,
      );
      return undefined;
    }
    return this.panel!.webview.asWebviewUri(uri).toString();
  }

  // ------------------------------------------------------------ linking

  /** Editor cursor moved: highlight the region under it. */
  onSelection(offset: number): void {
    const r = this.map.regionAt(offset);
    if (r?.id === this.lastHighlight) return;
    this.lastHighlight = r?.id;
    if (r) this.selected = r.id;
    this.post({ type: 'highlight', regionId: r?.id, reveal: true });
  }

  private async reveal(id: string, focus: boolean): Promise<void> {
    this.selected = id;
    const r = this.map.region(id);
    if (!r?.range) {
      this.post({
        type: 'status',
        level: 'info',
        text: `Region ${id} has no Markdown in ${this.name} (reparse it to write some).`,
      });
      return;
    }
    const doc = await vscode.workspace.openTextDocument(this.mdUri);
    const range = new vscode.Range(doc.positionAt(r.range.start), doc.positionAt(r.range.end));
    let editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === this.key);
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

  // ------------------------------------------------------------ scroll sync (scrollSync.ts)

  /** Linked regions' Markdown as editor lines, in line order. */
  private lineSpans(doc: vscode.TextDocument): LineSpan[] {
    const spans: LineSpan[] = [];
    for (const r of this.map.allRegions()) {
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
    if (!this.panel || this.editorEcho.isEcho(topLine)) return;
    // Until a conversion's first page is on screen the view stays at its top: the `.md`'s scroll
    // then is VS Code restoring the old file's position, and following it would make the first
    // image a page deep in the document, fetched the slow way (not inline) by a webview still starting.
    if (this.converting && this.trace && !this.trace.finished) return;
    if (!scrollSetting('scrollViewWithEditor', this.mdUri)) return;
    const at = regionAtLine(this.lineSpans(doc), topLine);
    if (at) this.post({ type: 'scrollTo', regionId: at.id, fraction: at.fraction });
  }

  /** The user scrolled the view: the `.md` editor (when visible) puts the matching line at its top. */
  private onViewScrolled(regionId: string, fraction: number): void {
    if (!scrollSetting('scrollEditorWithView', this.mdUri)) return;
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === this.key);
    if (!editor) return;
    const span = this.lineSpans(editor.document).find((s) => s.id === regionId);
    if (!span) return;
    const line = lineInSpan(span, fraction);
    this.editorEcho.moving(line);
    editor.revealRange(new vscode.Range(line, 0, line, 0), vscode.TextEditorRevealType.AtTop);
  }

  /** The group beside the view, where the `.md` belongs when it is not open. */
  private editorColumn(): vscode.ViewColumn {
    const pc = this.panel?.viewColumn;
    return pc ? ((pc + 1) as vscode.ViewColumn) : vscode.ViewColumn.Beside;
  }

  // ------------------------------------------------------------ webview messages

  private onViewMessage(raw: unknown): void {
    const m = parseViewMessage(raw);
    if (typeof m === 'string') {
      this.ctx.output.appendLine(`[warning] preview: ignored a webview message: ${m}`);
      return;
    }
    if (m.uri !== this.key) return;
    if (m.type === 'ready') {
      this.trace?.mark(`webview ready (its script ran ${Math.round(m.scriptMs ?? -1)} ms into its load)`);
      this.webviewUp = true;
      this.mdGate?.webviewReady();
      this.sendInit();
      return;
    }
    if (m.type === 'painted') {
      const s = m.steps;
      if (s)
        this.trace?.mark(
          `in the webview: page in +${Math.round(s.received)}, image asked +${Math.round(s.requested)}, loaded +${Math.round(s.loaded)} ms after its script ran`,
        );
      const line = this.trace?.painted(m.page);
      if (line) {
        this.ctx.output.appendLine(line);
        this.mdGate?.release('painted');
        this.inlined = undefined;
        this.scheduleRefresh(0); // the pages held behind the first one (firstPaintHold)
      }
      return;
    }
    // Scroll positions are not edits: a document version moved on meanwhile does not make them stale.
    if (m.type === 'scrolled') {
      this.onViewScrolled(m.regionId, m.fraction);
      return;
    }
    if (m.type === 'convert') {
      if (this.pdf) void vscode.commands.executeCommand('folio.convertPdf', this.pdf, 'markdown');
      return;
    }
    if (m.type === 'sharpen') {
      void this.sharpen(m.pages, m.scale);
      return;
    }
    if (isStale(m.version, this.sentVersion)) {
      // The webview acted on a state it had not yet replaced: drop it and let it catch up.
      this.post({
        type: 'status',
        level: 'warning',
        text: 'The document changed meanwhile; that action was dropped. Try again.',
      });
      this.refresh();
      return;
    }
    void this.handle(m).catch((e: unknown) => {
      const msg = messageOf(e);
      this.ctx.output.appendLine(`[error] preview (${m.type}): ${msg}`);
      this.post({ type: 'status', level: 'error', text: msg });
    });
  }

  /**
   * Renders `pages` again at `scale` (page images only: no OCR, the pipeline engine) for a view
   * zoomed past its images' pixels. One request at a time; pages already that sharp are skipped;
   * a conversion running, or a newer request, wins: the view asks once per zoom that settles, so a
   * newer request dropped while an older one rendered was never asked again (a slow render at ×1.9
   * left the pages blurred at ×3).
   */
  private async sharpen(pages: number[], scale: number): Promise<void> {
    if (!this.pdf || this.converting) return;
    const base = this.options.scale ?? this.ctx.config.renderScale;
    const want = pages.filter((n) => this.map.page(n) && scale > (this.sharp.get(n)?.scale ?? base) + 0.01);
    if (!want.length) return;
    this.sharpening?.cancel();
    const cts = (this.sharpening = new vscode.CancellationTokenSource());
    try {
      const summary = await convert(
        this.ctx,
        {
          pdfUri: this.pdf,
          pages: want.join(','),
          password: this.password,
          options: {
            renderImages: true,
            ocr: 'never',
            engine: 'pipeline',
            scale,
            keepFurniture: true,
            cacheDir: this.ctx.cacheDir.fsPath,
          },
          shared: false,
        },
        cts.token,
      );
      for (const p of summary.pages ?? [])
        if (p.image) this.sharp.set(p.page, { scale, image: p.image, width: p.imageWidth, height: p.imageHeight });
      this.refresh(want);
    } catch (e) {
      if (!cts.token.isCancellationRequested)
        this.ctx.output.appendLine(
          `[warning] preview: could not render sharper pages ${want.join(',')} of ${this.name}: ${messageOf(e)}`,
        );
    } finally {
      if (this.sharpening === cts) this.sharpening = undefined;
      cts.dispose();
    }
  }

  private async handle(
    m: Exclude<
      ViewMessage,
      { type: 'ready' } | { type: 'convert' } | { type: 'sharpen' } | { type: 'painted' } | { type: 'scrolled' }
    >,
  ): Promise<void> {
    switch (m.type) {
      case 'reveal':
        await this.reveal(m.regionId, m.focus);
        return;
      case 'editRegion': {
        if (!this.editRegion(m.regionId, { bbox: m.bbox, cls: m.cls })) return;
        this.refresh();
        this.persist();
        return;
      }
      case 'reparse':
        await reparseRegion(this.ctx, this, m.regionId, { bbox: m.bbox, cls: m.cls });
        return;
      case 'addRegion': {
        const r = this.map.addRegion(m.page, m.bbox, m.cls);
        this.selected = r.id;
        this.refresh();
        // The region just drawn becomes the selection, ready to adjust or delete.
        this.lastHighlight = r.id;
        this.post({ type: 'highlight', regionId: r.id, reveal: false });
        await reparseRegion(this.ctx, this, r.id, {});
        return;
      }
      case 'deleteRegion':
        await deleteRegion(this, m.regionId);
        return;
    }
  }

  // ------------------------------------------------------------ ReparseTarget (reparse.ts)

  editRegion(id: string, change: { bbox?: BBox; cls?: RegionClass }): RegionSnapshot | undefined {
    const r = this.map.region(id);
    const p = r && this.map.page(r.page);
    if (!r || !p) return undefined;
    if (change.bbox) {
      r.bbox = change.bbox;
      r.grid = gridOf(change.bbox, p.width, p.height);
    }
    if (change.cls) r.cls = change.cls;
    this.selected = r.id;
    return { page: r.page, bbox: r.bbox, cls: r.cls, order: r.order, linked: !!r.range };
  }

  reparseOptions(): ConvertOptions {
    return this.options;
  }

  pdfPassword(): string | undefined {
    return this.password;
  }

  rememberPassword(pw: string): void {
    this.password = pw;
  }

  beginReparse(id: string, text: string): vscode.CancellationToken {
    this.inflight.get(id)?.cancel();
    const cts = new vscode.CancellationTokenSource();
    this.inflight.set(id, cts);
    this.post({ type: 'status', level: 'info', text, regionId: id, busy: true });
    return cts.token;
  }

  endReparse(id: string, token: vscode.CancellationToken): void {
    const cts = this.inflight.get(id);
    if (cts?.token !== token) return; // a newer reparse of this region owns it now
    this.inflight.delete(id);
    cts.dispose();
    this.post({ type: 'status', level: 'info', text: '', regionId: id, busy: false });
  }

  planReparse(id: string, c: ReparseContext): ReparsePlan {
    return planReparse(this.map, id, c);
  }

  setRegionMarkdown(id: string, start: number, markdown: string, doctags: string): void {
    const region = this.map.region(id);
    if (!region) return;
    region.range = markdown ? { start, end: start + markdown.length } : undefined;
    region.text = markdown;
    region.doctags = doctags;
    const doc = this.document();
    if (markdown && doc && doc.getText().slice(start, start + markdown.length) !== markdown) this.trySync();
    this.refresh();
    this.persist();
  }

  removeRegion(id: string): { start: number; end: number } | undefined | false {
    this.inflight.get(id)?.cancel();
    const region = this.map.removeRegion(id);
    if (!region) return false;
    if (this.selected === id) this.selected = undefined;
    return region.range;
  }

  regionDeleted(): void {
    this.refresh();
    this.persist();
  }

  notify(level: 'info' | 'warning', text: string, alsoPopup = false): void {
    this.post({ type: 'status', level, text });
    if (alsoPopup) void vscode.window.showWarningMessage(`Folio: ${text}`);
  }

  // ------------------------------------------------------------ sidecar

  private persist(): void {
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
    this.sharpening?.cancel();
    clearTimeout(this.refreshTimer);
    clearTimeout(this.persistTimer);
    for (const c of this.inflight.values()) c.cancel();
    this.panel?.dispose();
  }
}
