/**
 * Owns the open linked views (one `LinkedView` per converted `.md`), as VS Code's markdown
 * preview manager owns its previews: it routes conversion events, document edits and editor
 * cursors to the view they concern, opens views in the side-by-side layout (layout.ts), restores
 * them after a window reload (panel serializer, and the `folio.pdf` custom editor, which hosts the
 * same view), and disposes them with the extension. Every listener is registered in the context.
 */
import * as vscode from 'vscode';
import type { FolioContext } from '../context';
import type { ConversionEvents } from '../conversion';
import { markdownUriFor } from '../paths';
import { readSidecar, sidecarUri } from './sidecar';
import { LinkedView } from './view';
import { closeRawPdfTabs, showMarkdownBeside, viewColumnFor } from './layout';
import { messageOf } from '../../common/errorKinds';
import { SourceViews } from './sourceView';

export class LinkedViews implements vscode.Disposable {
  private readonly views = new Map<string, LinkedView>();
  /** How Office/HTML sources show (outline, slides as pages through LibreOffice). */
  private readonly sources: SourceViews;

  constructor(private readonly ctx: FolioContext) {
    this.sources = new SourceViews(ctx);
  }

  get(mdUri: vscode.Uri): LinkedView | undefined {
    return this.views.get(mdUri.toString());
  }

  /** The view of this `.md`, created empty when there is none. */
  viewFor(mdUri: vscode.Uri): LinkedView {
    let v = this.views.get(mdUri.toString());
    if (!v) {
      v = new LinkedView(mdUri, this.ctx);
      this.views.set(mdUri.toString(), v);
    }
    return v;
  }

  /** The view whose webview has the focus. */
  active(): LinkedView | undefined {
    return [...this.views.values()].find((v) => v.isActive);
  }

  /** A view with content: live, or loaded from the sidecar. Throws a message naming the file. */
  async load(mdUri: vscode.Uri): Promise<LinkedView> {
    const live = this.views.get(mdUri.toString());
    if (live?.hasPages()) return live;
    const data = await readSidecar(mdUri, (m) => {
      this.ctx.output.appendLine(`[warning] ${m}`);
      void vscode.window.showWarningMessage(`Folio: ${m}`);
    });
    if (!data) {
      throw new Error(
        `No Folio view data for ${mdUri.fsPath} (${sidecarUri(mdUri).path.split('/').pop()} is missing). Run "Folio: Convert PDF to Markdown" on its PDF first.`,
      );
    }
    const v = this.viewFor(mdUri);
    await vscode.workspace.openTextDocument(mdUri).then(undefined, () => undefined);
    v.restore(data.pdf, data.options, data.pages, data.mdSha256);
    this.sources.restored(v, data.pages);
    return v;
  }

  /**
   * The side-by-side layout: the view where the PDF's text tab was (that tab closed) or in
   * `column`, the `.md` in the group to its right.
   */
  async openSideBySide(v: LinkedView, column: vscode.ViewColumn, preserveFocus: boolean): Promise<void> {
    v.show(column, preserveFocus);
    v.sendInit();
    if (v.pdfUri) await closeRawPdfTabs(v.pdfUri);
    // A conversion's `.md` opens once its first page is on screen: in code-server the editor's
    // grammar requests would otherwise hold up the webview's start (markdownGate.ts).
    if (!(await v.markdownMayOpen())) return;
    await showMarkdownBeside(v.mdUri, v.viewColumn ?? column);
  }

  /** Conversion events (src/conversion.ts) to the view of their `.md`. */
  conversionListener(onFinished: () => void): ConversionEvents {
    return {
      preparing: ({ pdfUri, mdUri, commandAt }) => {
        const v = this.viewFor(mdUri);
        this.sources.started(v, pdfUri);
        v.prepare(pdfUri, viewColumnFor(pdfUri), commandAt);
      },
      failed: ({ mdUri, message }) => this.get(mdUri)?.fail(message),
      started: ({ pdfUri, mdUri, options, conversionId, timing }) => {
        const v = this.viewFor(mdUri);
        this.sources.started(v, pdfUri);
        v.start(pdfUri, options, conversionId, timing);
        void this.openSideBySide(v, v.viewColumn ?? viewColumnFor(pdfUri), true);
      },
      progress: ({ mdUri, done, total }) => this.get(mdUri)?.progress(done, total),
      page: ({ mdUri, page, mdOffset }) => this.viewFor(mdUri).addPage(page, mdOffset),
      partial: ({ mdUri, conversionId, partial }) => this.get(mdUri)?.partial(conversionId, partial),
      finished: ({ mdUri, summary, writtenHash }) => {
        const v = this.viewFor(mdUri);
        v.finish(summary.cancelled, summary.pagesDone.length, writtenHash);
        this.sources.finished(v, summary.cancelled, summary.pagesDone.length);
        onFinished();
      },
    };
  }

  /** A restored `folio.preview` panel: its `.md` comes from the webview's saved state. */
  async restorePanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const uri = (state as { uri?: unknown } | undefined)?.uri;
    try {
      if (typeof uri !== 'string' || !uri)
        throw new Error('The restored Folio view did not say which Markdown file it showed.');
      (await this.load(vscode.Uri.parse(uri, true))).attach(panel);
    } catch (e) {
      panel.dispose();
      void vscode.window.showWarningMessage(`Folio: ${messageOf(e)}`);
    }
  }

  /**
   * The `folio.pdf` custom editor ("Open With… Folio PDF Viewer") hosts the same view: the PDF's
   * converted `.md` (live or from its sidecar), or, before a conversion, the PDF with a Convert button.
   */
  async openPdfEditor(pdfUri: vscode.Uri, panel: vscode.WebviewPanel): Promise<void> {
    const live = [...this.views.values()].find((v) => v.pdfUri?.toString() === pdfUri.toString() && v.hasPages());
    const mdUri = live?.mdUri ?? markdownUriFor(pdfUri, this.ctx.config.outputDirectory);
    let v: LinkedView;
    try {
      v = live ?? (await this.load(mdUri));
    } catch {
      v = this.viewFor(mdUri);
      v.setPdf(pdfUri);
    }
    v.attach(panel);
  }

  dispose(): void {
    this.sources.dispose();
    for (const v of this.views.values()) v.dispose();
    this.views.clear();
  }
}
