/**
 * One converted `.md` and its preview: the region map, the webview panel (at most one), the link
 * between them, and the sidecar. Conversion events fill the map page by page; document changes
 * move its ranges; webview messages become editor selections and region edits.
 */
import * as vscode from 'vscode';
import type { ConvertOptions, PagePartialParams, PageResult } from '../../server/protocol';
import { isStale, parseViewMessage, type HostMessageBody, type MarkdownBlock, type PageView, type ViewMessage } from '../../media/messages';
import type { FolioContext } from '../context';
import { previewHtml, previewResourceRoots } from './html';
import { gridOf, RegionMap, type MappedPage } from './regionMap';
import { writeSidecar, sidecarOptions, SIDECAR_VERSION, type Sidecar } from './sidecar';
import { isInside } from '../../server/util/safeWrite';
import { deleteRegion, reparseRegion } from './reparse';

export const PREVIEW_VIEW_TYPE = 'folio.preview';

export class PreviewSession implements vscode.Disposable {
  map = new RegionMap();
  pdfUri: vscode.Uri | undefined;
  options: ConvertOptions = {};
  converting = false;
  /** The running conversion's id (its partial-result token): partials of any other are stale. */
  conversionId: string | undefined;
  panel: vscode.WebviewPanel | undefined;
  /** Reparses in flight, by region id; a newer one cancels the older. */
  readonly inflight = new Map<string, vscode.CancellationTokenSource>();
  /** Region last selected in the preview (target of the "Reparse Region" command). */
  selectedRegion: string | undefined;
  /** Password the PDF needed for a reparse (kept for this session only). */
  password: string | undefined;
  /** SHA-256 of the `.md` as Folio last wrote it (kept in the sidecar; see commands/convertPdf). */
  writtenHash: string | undefined;
  private synced = true;
  private settleUntil = 0;
  private sentVersion = -1;
  private readonly lastSent = new Map<number, string>();
  private lastHighlight: string | undefined;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private persistTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly panelSubs: vscode.Disposable[] = [];

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

  document(): vscode.TextDocument | undefined {
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === this.key);
  }

  version(): number {
    return this.document()?.version ?? 0;
  }

  // ------------------------------------------------------------ conversion

  start(pdfUri: vscode.Uri, options: ConvertOptions, conversionId?: string): void {
    this.conversionId = conversionId;
    for (const c of this.inflight.values()) c.cancel();
    this.inflight.clear();
    this.map = new RegionMap();
    this.pdfUri = pdfUri;
    this.options = options;
    this.converting = true;
    this.synced = false;
    this.lastSent.clear();
    this.sendInit();
  }

  addPage(page: PageResult, mdOffset: number): void {
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
    this.converting = false;
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
    this.pdfUri = vscode.Uri.parse(pdf);
    this.options = options;
    this.writtenHash = writtenHash;
    this.converting = false;
    this.synced = false;
    this.settleUntil = 0;
    this.trySync();
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
  trySync(): void {
    const doc = this.document();
    if (!doc) return;
    if (this.synced) this.map.captureTexts(doc.getText());
    const wanted = this.map.allRegions().filter((r) => r.text).length;
    const linked = this.map.anchor(doc.getText());
    this.synced = linked === wanted || (!this.converting && Date.now() > this.settleUntil);
  }

  // ------------------------------------------------------------ panel

  show(column: vscode.ViewColumn, preserveFocus: boolean): vscode.WebviewPanel {
    if (this.panel) {
      this.panel.reveal(undefined, preserveFocus);
      return this.panel;
    }
    const panel = vscode.window.createWebviewPanel(
      PREVIEW_VIEW_TYPE,
      this.title(),
      { viewColumn: column, preserveFocus },
      { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: previewResourceRoots(this.ctx.extension.extensionUri, this.ctx.cacheDir) },
    );
    this.attach(panel);
    return panel;
  }

  attach(panel: vscode.WebviewPanel): void {
    this.panel?.dispose();
    this.panel = panel;
    panel.title = this.title();
    panel.webview.options = { enableScripts: true, localResourceRoots: previewResourceRoots(this.ctx.extension.extensionUri, this.ctx.cacheDir) };
    this.lastSent.clear();
    this.panelSubs.push(
      panel.webview.onDidReceiveMessage((m: unknown) => this.onViewMessage(m)),
      panel.onDidDispose(() => {
        if (this.panel === panel) this.panel = undefined;
        for (const s of this.panelSubs.splice(0)) s.dispose();
      }),
    );
    panel.webview.html = previewHtml(panel.webview, this.ctx.extension.extensionUri, this.key);
  }

  private title(): string {
    return `Preview ${this.name}`;
  }

  post(m: HostMessageBody): void {
    if (!this.panel) return;
    const version = this.version();
    this.sentVersion = version;
    void this.panel.webview.postMessage({ ...m, uri: this.key, version });
  }

  sendInit(): void {
    if (!this.panel) return;
    const text = this.document()?.getText();
    const pages = this.map.allPages().map((p) => this.pageView(p, text));
    this.lastSent.clear();
    for (const p of pages) this.lastSent.set(p.page, JSON.stringify(p));
    this.post({ type: 'init', title: this.name, pdfUri: this.pdfUri?.toString() ?? '', pages, converting: this.converting, conversion: this.converting ? this.conversionId : undefined });
  }

  private scheduleRefresh(ms = 60): void {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => this.refresh(), ms);
  }

  /** Sends the pages (all, or `only`) whose view changed since last sent. */
  refresh(only?: number[]): void {
    if (!only) clearTimeout(this.refreshTimer);
    if (!this.panel) return;
    const text = this.document()?.getText();
    const pages = only ? only.map((n) => this.map.page(n)).filter((p): p is MappedPage => !!p) : this.map.allPages();
    for (const p of pages) {
      const view = this.pageView(p, text);
      const json = JSON.stringify(view);
      if (this.lastSent.get(p.page) === json) continue;
      this.lastSent.set(p.page, json);
      this.post({ type: 'page', page: view });
    }
  }

  pageView(p: MappedPage, text = this.document()?.getText()): PageView {
    const regions = [...p.regions].sort((a, b) => a.order - b.order);
    const blocks: MarkdownBlock[] = [];
    const linked = regions.filter((r) => r.range).sort((a, b) => a.range!.start - b.range!.start);
    let prevEnd: number | undefined;
    for (const r of linked) {
      const rng = r.range!;
      if (text !== undefined && prevEnd !== undefined && rng.start > prevEnd) {
        // Text the user added between two regions: shown, but owned by no region.
        const gap = text.slice(prevEnd, rng.start);
        if (gap.trim()) blocks.push({ markdown: gap.trim() });
      }
      blocks.push({ regionId: r.id, markdown: text !== undefined ? text.slice(rng.start, rng.end) : r.text });
      prevEnd = rng.end;
    }
    const image = p.image && this.panel ? this.imageSrc(p.image) : undefined;
    return {
      page: p.page,
      width: p.width,
      height: p.height,
      imageSrc: image,
      imageWidth: p.imageWidth,
      imageHeight: p.imageHeight,
      regions: regions.map((r) => ({ id: r.id, cls: r.cls, level: r.level, bbox: r.bbox, grid: r.grid, order: r.order, linked: !!r.range })),
      blocks,
      ocr: p.ocr,
      warnings: p.warnings,
      error: p.error,
    };
  }

  private imageSrc(path: string): string | undefined {
    const uri = vscode.Uri.file(path);
    const cache = this.ctx.cacheDir.fsPath;
    // Normalized first: `<cache>/../x.png` starts with the cache's path but is not inside it.
    // localResourceRoots would refuse it anyway; saying so in the log is kinder.
    if (!isInside(cache, uri.fsPath) || uri.fsPath === cache) {
      this.ctx.output.appendLine(`[warning] preview: page image ${path} is outside the cache folder ${cache}; not shown`);
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
    if (r) this.selectedRegion = r.id;
    this.post({ type: 'highlight', regionId: r?.id, reveal: true });
  }

  async reveal(id: string, focus: boolean): Promise<void> {
    this.selectedRegion = id;
    const r = this.map.region(id);
    if (!r?.range) {
      this.post({ type: 'status', level: 'info', text: `Region ${id} has no Markdown in ${this.name} (reparse it to write some).` });
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
    editor.selection = new vscode.Selection(range.start, range.end);
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  private editorColumn(): vscode.ViewColumn {
    const pc = this.panel?.viewColumn;
    return pc && pc > 1 ? pc - 1 : vscode.ViewColumn.Beside;
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
      this.sendInit();
      return;
    }
    if (isStale(m.version, this.sentVersion)) {
      // The webview acted on a state it had not yet replaced: drop it and let it catch up.
      this.post({ type: 'status', level: 'warning', text: 'The document changed meanwhile; that action was dropped. Try again.' });
      this.refresh();
      return;
    }
    void this.handle(m).catch((e: unknown) => {
      const msg = e instanceof Error ? e.message : String(e);
      this.ctx.output.appendLine(`[error] preview (${m.type}): ${msg}`);
      this.post({ type: 'status', level: 'error', text: msg });
    });
  }

  private async handle(m: Exclude<ViewMessage, { type: 'ready' }>): Promise<void> {
    switch (m.type) {
      case 'reveal':
        await this.reveal(m.regionId, m.focus);
        return;
      case 'editRegion': {
        const r = this.map.region(m.regionId);
        const p = this.map.page(m.page);
        if (!r || !p) return;
        r.bbox = m.bbox;
        r.cls = m.cls;
        r.grid = gridOf(m.bbox, p.width, p.height);
        this.selectedRegion = r.id;
        this.refresh();
        this.persist();
        return;
      }
      case 'reparse':
        await reparseRegion(this, m.regionId, { bbox: m.bbox, cls: m.cls });
        return;
      case 'addRegion': {
        const r = this.map.addRegion(m.page, m.bbox, m.cls);
        this.selectedRegion = r.id;
        this.refresh();
        // The region just drawn becomes the selection, ready to adjust or delete.
        this.lastHighlight = r.id;
        this.post({ type: 'highlight', regionId: r.id, reveal: false });
        await reparseRegion(this, r.id, {});
        return;
      }
      case 'deleteRegion':
        await deleteRegion(this, m.regionId);
        return;
    }
  }

  // ------------------------------------------------------------ sidecar

  persist(): void {
    clearTimeout(this.persistTimer);
    this.persistTimer = setTimeout(() => this.persistNow(), 300);
  }

  persistNow(): void {
    clearTimeout(this.persistTimer);
    if (!this.pdfUri) return;
    const doc = this.document();
    if (doc && this.synced) this.map.captureTexts(doc.getText());
    // Only how the text was read goes into the sidecar; folders come from the configuration.
    const data: Sidecar = { folio: SIDECAR_VERSION, pdf: this.pdfUri.toString(), options: sidecarOptions(this.options), pages: this.map.allPages(), ...(this.writtenHash ? { mdSha256: this.writtenHash } : {}) };
    writeSidecar(this.mdUri, data).catch((e: unknown) =>
      this.ctx.output.appendLine(`[warning] preview: could not write the sidecar of ${this.name}: ${e instanceof Error ? e.message : String(e)}`),
    );
  }

  dispose(): void {
    clearTimeout(this.refreshTimer);
    clearTimeout(this.persistTimer);
    for (const c of this.inflight.values()) c.cancel();
    this.panel?.dispose();
  }
}
