/**
 * A custom editor for `*.pdf` (`folio.pdf`, priority "option": offered in "Open With…", never
 * taking over from another PDF viewer): the pages rendered by the backend (the same renderer as
 * the preview's page images; no OCR, so opening is quick), as paper with zoom, a "Convert to
 * Markdown" button that runs the usual command, and the region boxes once the PDF has Markdown.
 */
import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import { ConvertRequest, type ConvertParams, type PageResult } from '../server/protocol';
import type { FolioContext } from './context';
import { markdownUriFor } from './paths';
import { isFromViewer, type ToViewer, type ViewerPage } from '../media/pdfEditor/messages';

export const PDF_EDITOR_VIEW_TYPE = 'folio.pdf';

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function viewerHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = randomBytes(18).toString('base64');
  const asset = (...p: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...p)).toString();
  const csp = ["default-src 'none'", `img-src ${webview.cspSource}`, `style-src ${webview.cspSource} 'nonce-${nonce}'`, `script-src 'nonce-${nonce}'`].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" nonce="${nonce}" href="${escapeAttr(asset('media', 'pdfEditor.css'))}">
<title>Folio PDF viewer</title>
</head>
<body>
<div class="toolbar" role="toolbar" aria-label="PDF viewer">
  <button id="convert-btn" class="primary" title="Convert this PDF to Markdown">Convert to Markdown</button>
  <button id="zoom-out" title="Zoom out (−, Ctrl+wheel)" aria-label="Zoom out">−</button>
  <span id="zoom-level" aria-live="polite">100%</span>
  <button id="zoom-in" title="Zoom in (+, Ctrl+wheel)" aria-label="Zoom in">+</button>
  <button id="zoom-fit" title="Fit to width (0)">Fit width</button>
  <label><input type="checkbox" id="show-boxes"> Regions</label>
  <div id="status" role="status">Rendering pages…</div>
</div>
<main id="pages" aria-label="Pages"></main>
<script nonce="${nonce}" src="${escapeAttr(asset('dist', 'media', 'pdfEditor.js'))}"></script>
</body>
</html>`;
}

function toViewerPage(p: PageResult, webview: vscode.Webview): ViewerPage {
  const w = p.width || 1;
  const h = p.height || 1;
  const page: ViewerPage = {
    page: p.page,
    width: p.width || 612,
    height: p.height || 792,
    regions: p.regions.map((r) => ({ cls: r.cls, x: r.bbox.x0 / w, y: r.bbox.y0 / h, w: (r.bbox.x1 - r.bbox.x0) / w, h: (r.bbox.y1 - r.bbox.y0) / h })),
  };
  if (p.image) page.image = webview.asWebviewUri(vscode.Uri.file(p.image)).toString();
  return page;
}

class PdfViewerProvider implements vscode.CustomReadonlyEditorProvider {
  constructor(private readonly ctx: FolioContext) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): void {
    const ext = this.ctx.extension.extensionUri;
    const webview = panel.webview;
    webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(ext, 'media'), vscode.Uri.joinPath(ext, 'dist', 'media'), this.ctx.cacheDir] };
    webview.html = viewerHtml(webview, ext);
    const cts = new vscode.CancellationTokenSource();
    const post = (m: ToViewer) => void webview.postMessage(m);
    const name = document.uri.path.split('/').pop() ?? '';
    const load = async () => {
      const config = this.ctx.config;
      try {
        const client = await this.ctx.client();
        const params: ConvertParams = { uri: document.uri.toString(), options: { renderImages: true, ocr: 'never', scale: config.renderScale, cacheDir: this.ctx.cacheDir.fsPath, keepFurniture: true } };
        const summary = await client.sendRequest(ConvertRequest.type, params, cts.token);
        let converted = false;
        try {
          await vscode.workspace.fs.stat(markdownUriFor(document.uri, config.outputDirectory));
          converted = true;
        } catch {
          converted = false;
        }
        post({ type: 'pages', pages: (summary.pages ?? []).map((p) => toViewerPage(p, webview)), converted });
      } catch (e) {
        if (cts.token.isCancellationRequested) return;
        const message = e instanceof Error ? e.message : String(e);
        this.ctx.output.appendLine(`[error] viewer: ${name}: ${message}`);
        post({ type: 'status', text: `Could not show ${name}: ${message}` });
      }
    };
    const subs = [
      webview.onDidReceiveMessage((m: unknown) => {
        if (!isFromViewer(m)) return;
        if (m.type === 'ready') void load();
        else void vscode.commands.executeCommand('folio.convertPdf', document.uri, 'markdown').then(() => load()); // its button says Markdown, whatever folio.outputFormat is
      }),
      panel.onDidDispose(() => {
        cts.cancel();
        cts.dispose();
        for (const s of subs) s.dispose();
      }),
    ];
  }
}

export function registerPdfEditor(ctx: FolioContext): void {
  ctx.push(
    vscode.window.registerCustomEditorProvider(PDF_EDITOR_VIEW_TYPE, new PdfViewerProvider(ctx), { webviewOptions: { retainContextWhenHidden: false }, supportsMultipleEditorsPerDocument: true }),
    vscode.commands.registerCommand('folio.openPdfViewer', async (arg?: unknown) => {
      const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input as { uri?: vscode.Uri } | undefined;
      const uri = arg instanceof vscode.Uri ? arg : tab?.uri && /\.pdf$/i.test(tab.uri.path) ? tab.uri : (await vscode.window.showOpenDialog({ filters: { PDF: ['pdf'] } }))?.[0];
      if (uri) await vscode.commands.executeCommand('vscode.openWith', uri, PDF_EDITOR_VIEW_TYPE);
    }),
  );
}
