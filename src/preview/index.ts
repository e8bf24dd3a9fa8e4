/**
 * The linked view's registration: the manager (manager.ts), the listeners that feed it (document
 * edits, editor cursors, conversions), the panel serializer and the `folio.pdf` custom editor (the
 * same view), and the commands "Folio: Show Preview", "Folio: Reparse Region" and "Open PDF in
 * Folio Viewer". Everything registered here is disposed with the context.
 */
import * as vscode from 'vscode';
import type { FolioContext } from '../context';
import { markdownUriFor } from '../paths';
import { sidecarUri } from './sidecar';
import { PREVIEW_VIEW_TYPE } from './viewPanel';
import { LinkedViews } from './manager';
import { viewColumnFor } from './layout';
import { messageOf } from '../../common/errorKinds';

export const PDF_EDITOR_VIEW_TYPE = 'folio.pdf';

const isMarkdown = (uri: vscode.Uri | undefined): uri is vscode.Uri => !!uri && /\.(md|markdown)$/i.test(uri.path);

export function registerPreview(ctx: FolioContext): void {
  const views = new LinkedViews(ctx);
  const updateContextKey = () =>
    void previewAvailable(views, vscode.window.activeTextEditor).then((on) =>
      vscode.commands.executeCommand('setContext', 'folio.previewAvailable', on),
    );
  ctx.push(
    views,
    ctx.conversions.add(views.conversionListener(updateContextKey)),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.contentChanges.length > 0) views.get(e.document.uri)?.onDocumentChange(e);
    }),
    vscode.workspace.onDidOpenTextDocument((d) => views.get(d.uri)?.onDocumentOpened()),
    vscode.workspace.onDidSaveTextDocument((d) => views.get(d.uri)?.persistNow()),
    vscode.window.onDidChangeTextEditorSelection((e) => {
      const sel = e.selections[0];
      if (sel && e.kind !== undefined)
        views.get(e.textEditor.document.uri)?.onSelection(e.textEditor.document.offsetAt(sel.active));
    }),
    // Scroll sync, editor → view (view → editor arrives as the webview's `scrolled` message).
    vscode.window.onDidChangeTextEditorVisibleRanges((e) => {
      const top = e.visibleRanges[0]?.start.line;
      if (top !== undefined) views.get(e.textEditor.document.uri)?.onEditorScrolled(e.textEditor.document, top);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('folio.preview')) return;
      const c = vscode.workspace.getConfiguration('folio.preview');
      const onOff = (k: string) => (c.get<boolean>(k, true) ? 'on' : 'off');
      ctx.output.appendLine(
        `[info] preview: scroll sync: the .md follows the view: ${onOff('scrollEditorWithView')}, the view follows the .md: ${onOff('scrollViewWithEditor')}`,
      );
    }),
    vscode.window.onDidChangeActiveTextEditor(updateContextKey),
    vscode.window.registerWebviewPanelSerializer(PREVIEW_VIEW_TYPE, {
      deserializeWebviewPanel: (panel, state) => views.restorePanel(panel, state),
    }),
    vscode.window.registerCustomEditorProvider(
      PDF_EDITOR_VIEW_TYPE,
      {
        openCustomDocument: (uri) => ({ uri, dispose: () => undefined }),
        resolveCustomEditor: (doc, panel) => views.openPdfEditor(doc.uri, panel),
      } satisfies vscode.CustomReadonlyEditorProvider,
      { webviewOptions: { retainContextWhenHidden: true }, supportsMultipleEditorsPerDocument: false },
    ),
    vscode.commands.registerCommand('folio.showPreview', (arg?: unknown) => showPreview(ctx, views, arg)),
    vscode.commands.registerCommand('folio.reparseRegion', () => reparseAtCursor(views)),
    vscode.commands.registerCommand('folio.openPdfViewer', async (arg?: unknown) => {
      const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input as { uri?: vscode.Uri } | undefined;
      const uri =
        arg instanceof vscode.Uri
          ? arg
          : tab?.uri && /\.pdf$/i.test(tab.uri.path)
            ? tab.uri
            : (await vscode.window.showOpenDialog({ filters: { PDF: ['pdf'] } }))?.[0];
      if (uri) await vscode.commands.executeCommand('vscode.openWith', uri, PDF_EDITOR_VIEW_TYPE);
    }),
  );
  updateContextKey();
}

async function previewAvailable(views: LinkedViews, editor: vscode.TextEditor | undefined): Promise<boolean> {
  const uri = editor?.document.uri;
  if (!isMarkdown(uri)) return false;
  return (
    !!views.get(uri) ||
    (await vscode.workspace.fs.stat(sidecarUri(uri)).then(
      () => true,
      () => false,
    ))
  );
}

/** "Folio: Show Preview" on a converted `.md` or its PDF: the side-by-side view from the sidecar. */
async function showPreview(ctx: FolioContext, views: LinkedViews, arg: unknown): Promise<void> {
  // The argument (explorer, editor title), else the active editor, else the active tab (a PDF VS Code shows as binary has no text editor).
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input as { uri?: unknown } | undefined;
  let uri =
    arg instanceof vscode.Uri
      ? arg
      : (vscode.window.activeTextEditor?.document.uri ?? (tab?.uri instanceof vscode.Uri ? tab.uri : undefined));
  const fromPdf = !!uri && /\.pdf$/i.test(uri.path);
  if (uri && fromPdf) {
    try {
      uri = markdownUriFor(uri, ctx.config.outputDirectory);
    } catch (e) {
      // folio.outputDirectory leads outside the workspace (src/paths.ts says where and what to do).
      void vscode.window.showErrorMessage(`Folio: ${(e as Error).message}`);
      return;
    }
  }
  if (!isMarkdown(uri)) {
    void vscode.window.showInformationMessage(
      'Folio: open a converted Markdown file (or its PDF) to show its preview.',
    );
    return;
  }
  try {
    const v = await views.load(uri);
    const md = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === v.key);
    // From the PDF (shown as text): the view takes its place. From the `.md`: the view goes beside it.
    const column =
      v.viewColumn ??
      (fromPdf || !md?.viewColumn ? viewColumnFor(v.pdfUri) : ((md.viewColumn + 1) as vscode.ViewColumn));
    if (md?.viewColumn && !fromPdf && !v.hasPanel) {
      v.show(column, false);
      v.sendInit();
    } else await views.openSideBySide(v, column, false);
  } catch (e) {
    void vscode.window.showErrorMessage(`Folio: ${messageOf(e)}`);
  }
}

/** "Folio: Reparse Region": the region under the `.md` cursor, else the one selected in the focused view. */
async function reparseAtCursor(views: LinkedViews): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  let v = editor ? views.get(editor.document.uri) : undefined;
  let id = v && editor ? v.regionIdAt(editor.document.offsetAt(editor.selection.active)) : undefined;
  if (!id) {
    v = views.active() ?? v;
    id = v?.selectedRegion;
  }
  if (!v || !id) {
    void vscode.window.showInformationMessage(
      'Folio: put the cursor in a converted Markdown block, or select a region in the Folio view, then reparse.',
    );
    return;
  }
  try {
    await v.reparse(id);
  } catch (e) {
    void vscode.window.showErrorMessage(`Folio: reparse failed: ${messageOf(e)}`);
  }
}
