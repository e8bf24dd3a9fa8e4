/**
 * The linked view's webview and what goes to it (view.ts's panel part): the panel (its own, or
 * the `folio.pdf` custom editor's), `init` and `page` messages sent only when a page's view
 * changed, the first page's image inline and the other pages held behind its paint, and sharper
 * page images rendered for zoom. Messages from the webview go to the `onMessage` it is given
 * (viewInput.ts).
 */
import * as vscode from 'vscode';
import { readFileSync, statSync } from 'node:fs';
import type { HostMessageBody, PageView, ViewMessage } from '../../common/viewMessages';
import { messageOf } from '../../common/errorKinds';
import { isInside } from '../../common/safeWrite';
import { convert } from '../convertClient';
import { previewHtml, previewResourceRoots } from './html';
import { MarkdownGate } from './markdownGate';
import { pageViewOf } from './pageView';
import type { MappedPage } from './regionMap';
import type { ViewState } from './viewState';

export const PREVIEW_VIEW_TYPE = 'folio.preview';

type Painted = Extract<ViewMessage, { type: 'painted' }>;

export class ViewPanel {
  private panel: vscode.WebviewPanel | undefined;
  private readonly panelSubs: vscode.Disposable[] = [];
  /** The panel's webview has run its script (`ready`). */
  private webviewUp = false;
  /** The document version of the last message sent (a webview action on an older one is stale). */
  sentVersion = -1;
  private readonly lastSent = new Map<number, string>();
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  /** The conversion's first page, sent with its image inline until it is on screen (see `inlineImage`). */
  private inlinePage: number | undefined;
  private inlined: { path: string; data: string } | undefined;
  /** When the conversion's first page went to the webview (`firstPaintHold`). */
  private firstPostedAt: number | undefined;
  /** Sharper page images rendered for zoom (`sharpen`), by page: kept for this view only, not in the sidecar. */
  private readonly sharp = new Map<number, { scale: number; image: string; width?: number; height?: number }>();
  private sharpening: vscode.CancellationTokenSource | undefined;

  constructor(
    private readonly s: ViewState,
    private readonly onMessage: (m: unknown) => void,
  ) {}

  /** True when the view's webview is the focused editor. */
  get isActive(): boolean {
    return !!this.panel?.active;
  }

  get exists(): boolean {
    return !!this.panel;
  }

  /** The editor group the view is in. */
  get viewColumn(): vscode.ViewColumn | undefined {
    return this.panel?.viewColumn;
  }

  /** A new conversion's pages are on their way: nothing of the last one counts as sent. */
  newConversion(): void {
    this.lastSent.clear();
    this.inlinePage = undefined;
    this.firstPostedAt = undefined;
  }

  /** A new conversion starts: the last one's sharper images are gone. */
  dropSharp(): void {
    this.sharpening?.cancel();
    this.sharp.clear();
  }

  /** The conversion's first page is in: it goes with its image inline until it is on screen. */
  firstPage(page: number): void {
    this.inlinePage = page;
  }

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
        localResourceRoots: previewResourceRoots(this.s.ctx.extension.extensionUri, this.s.ctx.cacheDir),
      },
    );
    this.s.trace?.mark('panel created');
    this.attach(panel);
  }

  /** Hosts the view in `panel` (a new panel, a restored one, or the `folio.pdf` custom editor's). */
  attach(panel: vscode.WebviewPanel): void {
    if (this.panel && this.panel !== panel) this.panel.dispose();
    this.panel = panel;
    panel.title = this.title();
    panel.webview.options = {
      enableScripts: true,
      localResourceRoots: previewResourceRoots(this.s.ctx.extension.extensionUri, this.s.ctx.cacheDir),
    };
    this.lastSent.clear();
    this.panelSubs.push(
      panel.webview.onDidReceiveMessage((m: unknown) => this.onMessage(m)),
      panel.onDidDispose(() => {
        if (this.panel === panel) this.panel = undefined;
        for (const sub of this.panelSubs.splice(0)) sub.dispose();
        this.s.mdGate?.release('ended');
      }),
    );
    panel.webview.html = previewHtml(panel.webview, this.s.ctx.extension.extensionUri, this.s.key);
  }

  /** Closes the panel (a conversion that ended with no page leaves no empty pane). */
  close(): void {
    this.panel?.dispose();
  }

  /**
   * Resolves when the `.md` editor may open beside the view: at once, unless this view's
   * conversion is still on its way to its first page; then after that page is painted (bounded,
   * markdownGate.ts says why). False when the view closed meanwhile (a conversion that ended with
   * no page leaves no `.md` tab either).
   */
  async markdownMayOpen(): Promise<boolean> {
    const s = this.s;
    if (s.converting && this.panel && s.trace && !s.trace.finished) {
      if (!s.mdGate) {
        s.mdGate = new MarkdownGate();
        if (s.trace.has('first page posted')) s.mdGate.pagePosted();
        else if (this.webviewUp) s.mdGate.webviewReady();
      }
      const why = await s.mdGate.opened;
      s.trace?.mark(`.md shown (${why})`); // in the trace line only when it came before the page
    }
    return !!this.panel;
  }

  private title(): string {
    const pdf = this.s.pdf?.path.split('/').pop();
    return pdf ? `${pdf} ⇄ ${this.s.name}` : `Folio ${this.s.name}`;
  }

  post(m: HostMessageBody): void {
    if (!this.panel) return;
    const version = this.s.documentVersion();
    this.sentVersion = version;
    void this.panel.webview.postMessage({ ...m, uri: this.s.key, version });
  }

  sendInit(): void {
    if (!this.panel) return;
    const s = this.s;
    this.panel.title = this.title();
    const text = s.document()?.getText();
    const pages = s.map.allPages().map((p) => this.pageView(p, text));
    this.lastSent.clear();
    for (const p of pages) this.lastSent.set(p.page, JSON.stringify(p));
    const hasMarkdown = pages.length > 0 || s.converting;
    this.post({
      type: 'init',
      title: this.title(),
      pdfUri: s.pdf?.toString() ?? '',
      pages,
      converting: s.converting,
      conversion: s.converting ? s.conversionId : undefined,
      ...(s.converting && s.progress ? { progress: s.progress } : {}),
      ...(hasMarkdown ? {} : { notConverted: true }),
      sourceNote: s.sourceNote,
    });
  }

  /** The webview's script ran: it gets the whole state (`init`). */
  onReady(scriptMs: number | undefined): void {
    this.s.trace?.mark(`webview ready (its script ran ${Math.round(scriptMs ?? -1)} ms into its load)`);
    this.webviewUp = true;
    this.s.mdGate?.webviewReady();
    this.sendInit();
  }

  /** The webview painted a page: the first page's paint ends the trace and frees the pages held behind it. */
  onPainted(m: Painted): void {
    const st = m.steps;
    if (st)
      this.s.trace?.mark(
        `in the webview: page in +${Math.round(st.received)}, image asked +${Math.round(st.requested)}, loaded +${Math.round(st.loaded)} ms after its script ran`,
      );
    const line = this.s.trace?.painted(m.page);
    if (line) {
      this.s.ctx.output.appendLine(line);
      this.s.mdGate?.release('painted');
      this.inlined = undefined;
      this.scheduleRefresh(0); // the pages held behind the first one (firstPaintHold)
    }
  }

  scheduleRefresh(ms = 60): void {
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
    if (this.inlinePage === undefined || !this.s.trace || this.s.trace.finished) return 0;
    this.firstPostedAt ??= Date.now(); // posted with the init: the hold starts now
    return Math.max(0, this.firstPostedAt + ViewPanel.FIRST_PAINT_HOLD_MS - Date.now());
  }

  /** Sends the pages (all, or `only`) whose view changed since last sent. */
  refresh(only?: number[]): void {
    if (!only) clearTimeout(this.refreshTimer);
    if (!this.panel) return;
    const s = this.s;
    const text = s.document()?.getText();
    let pages = only ? only.map((n) => s.map.page(n)).filter((p): p is MappedPage => !!p) : s.map.allPages();
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
      if (s.trace && !s.trace.has('first page posted')) {
        s.trace.mark('first page posted');
        this.firstPostedAt = Date.now();
        s.mdGate?.pagePosted();
      }
    }
  }

  private pageView(p: MappedPage, text = this.s.document()?.getText()): PageView {
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
    if (!this.s.trace || this.s.trace.finished || !/\.png$/i.test(path)) return undefined;
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
    const cache = this.s.ctx.cacheDir.fsPath;
    // Normalized first: `<cache>/../x.png` starts with the cache's path but is not inside it.
    // localResourceRoots would refuse it anyway; saying so in the log is kinder.
    if (!isInside(cache, uri.fsPath) || uri.fsPath === cache) {
      this.s.ctx.output.appendLine(
        `[warning] preview: page image ${path} is outside the cache folder ${cache}; not shown`,
      );
      return undefined;
    }
    return this.panel!.webview.asWebviewUri(uri).toString();
  }

  /**
   * Renders `pages` again at `scale` (page images only: no OCR, the pipeline engine) for a view
   * zoomed past its images' pixels. One request at a time; pages already that sharp are skipped;
   * a conversion running, or a newer request, wins: the view asks once per zoom that settles, so a
   * newer request dropped while an older one rendered was never asked again (a slow render at ×1.9
   * left the pages blurred at ×3).
   */
  async sharpen(pages: number[], scale: number, password: string | undefined): Promise<void> {
    const s = this.s;
    if (!s.pdf || s.converting) return;
    const base = s.options.scale ?? s.ctx.config.renderScale;
    const want = pages.filter((n) => s.map.page(n) && scale > (this.sharp.get(n)?.scale ?? base) + 0.01);
    if (!want.length) return;
    this.sharpening?.cancel();
    const cts = (this.sharpening = new vscode.CancellationTokenSource());
    try {
      const summary = await convert(
        s.ctx,
        {
          pdfUri: s.pdf,
          pages: want.join(','),
          password,
          options: {
            renderImages: true,
            ocr: 'never',
            engine: 'pipeline',
            scale,
            keepFurniture: true,
            cacheDir: s.ctx.cacheDir.fsPath,
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
        s.ctx.output.appendLine(
          `[warning] preview: could not render sharper pages ${want.join(',')} of ${s.name}: ${messageOf(e)}`,
        );
    } finally {
      if (this.sharpening === cts) this.sharpening = undefined;
      cts.dispose();
    }
  }

  dispose(): void {
    this.sharpening?.cancel();
    clearTimeout(this.refreshTimer);
    this.panel?.dispose();
  }
}
