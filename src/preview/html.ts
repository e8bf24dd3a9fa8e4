/**
 * The linked view's HTML: a strict CSP (no inline script or style, scripts only with this
 * load's nonce, images/fonts/styles only from the webview's own resource roots), the toolbar,
 * the keyboard help, and the bundle dist/media/preview.js. No PDF-derived text is put here; it
 * arrives later as messages and is written with textContent.
 */
import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';

/** Folders the webview may load from: the extension's media, bundles and KaTeX, and the page-image cache. */
export function previewResourceRoots(extensionUri: vscode.Uri, cacheDir: vscode.Uri): vscode.Uri[] {
  return [
    vscode.Uri.joinPath(extensionUri, 'media'),
    vscode.Uri.joinPath(extensionUri, 'dist', 'media'),
    vscode.Uri.joinPath(extensionUri, 'node_modules', 'katex', 'dist'),
    cacheDir,
  ];
}

const escapeAttr = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function previewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, mdUri: string): string {
  const nonce = randomBytes(18).toString('base64');
  const asset = (...p: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...p)).toString();
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource} 'nonce-${nonce}'`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" nonce="${nonce}" href="${escapeAttr(asset('media', 'preview.css'))}">
<title>Folio view</title>
</head>
<body>
<div id="folio-root" class="hide-md" data-uri="${escapeAttr(mdUri)}">
  <div class="toolbar" role="toolbar" aria-label="Folio view">
    <h1 id="title">Folio</h1>
    <span class="group" role="group" aria-label="Zoom">
      <button id="zoom-out" title="Zoom out (−, Ctrl+wheel)" aria-label="Zoom out">−</button>
      <button id="zoom-level" title="Fit width (0)">Fit width</button>
      <button id="zoom-in" title="Zoom in (+, Ctrl+wheel)" aria-label="Zoom in">+</button>
    </span>
    <label title="The page's rendered Markdown beside it (M)"><input type="checkbox" id="show-md"> Markdown</label>
    <label><input type="checkbox" id="show-order" checked> Order</label>
    <select id="class-select" aria-label="Class of the selected region (and of new regions)"></select>
    <button id="reparse-btn" title="Reparse the selected region (R)">Reparse</button>
    <button id="delete-btn" title="Delete the selected region (Del)">Delete</button>
    <button id="draw-btn" aria-pressed="false" title="Draw a new region (N)">Draw</button>
    <button id="help-btn" title="Keyboard shortcuts (?)" aria-controls="help">?</button>
    <div id="legend" role="group" aria-label="Region classes (uncheck to hide)"></div>
    <div id="status" role="status" aria-live="polite"></div>
  </div>
  <div id="help" hidden>
    <dl>
      <dt>] / [ (or J / K), Tab / Shift+Tab</dt><dd>next / previous region in reading order (the editor follows)</dd>
      <dt>Enter</dt><dd>reveal the region's Markdown in the editor (focus moves there)</dd>
      <dt>Space</dt><dd>select the region</dd>
      <dt>R</dt><dd>reparse the region</dd>
      <dt>Del</dt><dd>delete the region and its Markdown</dd>
      <dt>Arrows (Shift: ×5)</dt><dd>move the region</dd>
      <dt>Alt+Arrows</dt><dd>resize the region</dd>
      <dt>Shift+F10 / Menu</dt><dd>region menu: reparse, change class, delete</dd>
      <dt>N, then drag or Enter</dt><dd>draw a new region (Enter: in the middle of the page in view)</dd>
      <dt>+ / − / 0, Ctrl+wheel</dt><dd>zoom in / out / fit width</dd>
      <dt>M</dt><dd>show or hide the rendered Markdown beside each page</dd>
      <dt>Esc</dt><dd>leave draw mode, close menus</dd>
      <dt>Ctrl+Alt+R (editor)</dt><dd>Folio: Reparse Region at the cursor</dd>
      <dt>Ctrl+K V (editor)</dt><dd>VS Code's Markdown preview of the whole file</dd>
    </dl>
  </div>
  <div id="not-converted" hidden>
    <p>This PDF has no Markdown yet.</p>
    <button id="convert-btn" class="primary">Convert to Markdown</button>
  </div>
  <nav id="outline" aria-label="Outline" hidden>
    <p id="source-note" role="note" hidden></p>
    <ol id="outline-list" aria-label="Headings and tables"></ol>
  </nav>
  <main id="pages" aria-label="Pages"></main>
  <section id="converting" class="page-placeholder" aria-label="Conversion progress">
    <div class="placeholder-sheet"><p id="converting-text" role="status" aria-live="polite">Loading the view…</p></div>
  </section>
</div>
<!-- KaTeX's styles (formulas in the Markdown pane) after the content: a stylesheet in the head
     would hold back the first render (the "Loading the view…" frame) until it is fetched. -->
<link rel="stylesheet" nonce="${nonce}" href="${escapeAttr(asset('node_modules', 'katex', 'dist', 'katex.min.css'))}">
<script nonce="${nonce}" src="${escapeAttr(asset('dist', 'media', 'preview.js'))}"></script>
</body>
</html>`;
}
