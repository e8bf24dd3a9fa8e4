/**
 * The preview's entry point: listens to conversions (src/conversion.ts), keeps one
 * PreviewSession per converted `.md`, follows document edits and editor cursors, restores panels
 * after a window reload (webview serializer + sidecar), and registers the commands
 * "Folio: Show Preview" and "Folio: Reparse Region".
 */
import * as vscode from 'vscode';
import type { FolioContext } from '../context';
import { markdownUriFor } from '../paths';
import { readSidecar, sidecarUri } from './sidecar';
import { PREVIEW_VIEW_TYPE, PreviewSession } from './session';
import { reparseRegion } from './reparse';

export function registerPreview(ctx: FolioContext): void {
  const sessions = new Map<string, PreviewSession>();
  const sessionFor = (mdUri: vscode.Uri): PreviewSession => {
    let s = sessions.get(mdUri.toString());
    if (!s) {
      s = new PreviewSession(mdUri, ctx);
      sessions.set(mdUri.toString(), s);
    }
    return s;
  };

  /** A session with content: live, or loaded from the sidecar. Throws a message naming the file. */
  const loadSession = async (mdUri: vscode.Uri): Promise<PreviewSession> => {
    const live = sessions.get(mdUri.toString());
    if (live && live.map.allPages().length > 0) return live;
    const data = await readSidecar(mdUri, (m) => {
      ctx.output.appendLine(`[warning] ${m}`);
      void vscode.window.showWarningMessage(`Folio: ${m}`);
    });
    if (!data) {
      throw new Error(`No Folio preview data for ${mdUri.fsPath} (${sidecarUri(mdUri).path.split('/').pop()} is missing). Run "Folio: Convert PDF to Markdown" on its PDF first.`);
    }
    const s = sessionFor(mdUri);
    if (!s.document()) await vscode.workspace.openTextDocument(mdUri).then(undefined, () => undefined);
    s.restore(data.pdf, data.options, data.pages, data.mdSha256);
    return s;
  };

  const mdEditor = (s: PreviewSession) => vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === s.key);

  const showBesideMarkdown = async (s: PreviewSession): Promise<void> => {
    // The convert command opens the .md beside the PDF without waiting for it; wait (bounded) so
    // the preview lands to the right of the Markdown rather than on top of it.
    const deadline = Date.now() + 5000;
    let editor = mdEditor(s);
    while (!editor && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      editor = mdEditor(s);
    }
    const column = editor?.viewColumn ? ((editor.viewColumn + 1) as vscode.ViewColumn) : vscode.ViewColumn.Beside;
    s.show(column, true);
    s.sendInit();
    // If the editor showed up late in the preview's group, move the preview one group right.
    setTimeout(() => {
      const e = mdEditor(s);
      if (e?.viewColumn && s.panel && s.panel.viewColumn === e.viewColumn) s.panel.reveal((e.viewColumn + 1) as vscode.ViewColumn, true);
    }, 1500);
  };

  const updateContextKey = async (editor: vscode.TextEditor | undefined): Promise<void> => {
    let available = false;
    const uri = editor?.document.uri;
    if (uri && /\.(md|markdown)$/i.test(uri.path)) {
      available = sessions.has(uri.toString()) || (await vscode.workspace.fs.stat(sidecarUri(uri)).then(() => true, () => false));
    }
    await vscode.commands.executeCommand('setContext', 'folio.previewAvailable', available);
  };

  ctx.push(
    ctx.conversions.add({
      started: ({ pdfUri, mdUri, options, conversionId }) => {
        const s = sessionFor(mdUri);
        s.start(pdfUri, options, conversionId);
        void showBesideMarkdown(s);
      },
      page: ({ mdUri, page, mdOffset }) => sessionFor(mdUri).addPage(page, mdOffset),
      partial: ({ mdUri, conversionId, partial }) => sessions.get(mdUri.toString())?.partial(conversionId, partial),
      finished: ({ mdUri, summary, writtenHash }) => {
        sessionFor(mdUri).finish(summary.cancelled, summary.pagesDone.length, writtenHash);
        void updateContextKey(vscode.window.activeTextEditor);
      },
    }),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.contentChanges.length > 0) sessions.get(e.document.uri.toString())?.onDocumentChange(e);
    }),
    vscode.workspace.onDidOpenTextDocument((d) => sessions.get(d.uri.toString())?.onDocumentOpened()),
    vscode.workspace.onDidSaveTextDocument((d) => sessions.get(d.uri.toString())?.persistNow()),
    vscode.window.onDidChangeTextEditorSelection((e) => {
      const s = sessions.get(e.textEditor.document.uri.toString());
      const sel = e.selections[0];
      if (s && sel && e.kind !== undefined) s.onSelection(e.textEditor.document.offsetAt(sel.active));
    }),
    vscode.window.onDidChangeActiveTextEditor((e) => void updateContextKey(e)),
    vscode.window.registerWebviewPanelSerializer(PREVIEW_VIEW_TYPE, {
      async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown) {
        const uri = (state as { uri?: unknown } | undefined)?.uri;
        try {
          if (typeof uri !== 'string' || !uri) throw new Error('The restored Folio preview did not say which Markdown file it showed.');
          const s = await loadSession(vscode.Uri.parse(uri, true));
          s.attach(panel);
        } catch (e) {
          panel.dispose();
          void vscode.window.showWarningMessage(`Folio: ${e instanceof Error ? e.message : String(e)}`);
        }
      },
    }),
    vscode.commands.registerCommand('folio.showPreview', async (arg?: unknown) => {
      let uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
      if (uri && /\.pdf$/i.test(uri.path)) uri = markdownUriFor(uri, ctx.config.outputDirectory);
      if (!uri || !/\.(md|markdown)$/i.test(uri.path)) {
        void vscode.window.showInformationMessage('Folio: open a converted Markdown file (or its PDF) to show its preview.');
        return;
      }
      try {
        const s = await loadSession(uri);
        const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === s.key);
        s.show(editor?.viewColumn ? ((editor.viewColumn + 1) as vscode.ViewColumn) : vscode.ViewColumn.Beside, false);
        s.sendInit();
      } catch (e) {
        void vscode.window.showErrorMessage(`Folio: ${e instanceof Error ? e.message : String(e)}`);
      }
    }),
    vscode.commands.registerCommand('folio.reparseRegion', async () => {
      // The region under the `.md` cursor, else the region selected in the focused preview.
      const editor = vscode.window.activeTextEditor;
      let s = editor ? sessions.get(editor.document.uri.toString()) : undefined;
      let id = s && editor ? s.map.regionAt(editor.document.offsetAt(editor.selection.active))?.id : undefined;
      if (!id) {
        s = [...sessions.values()].find((x) => x.panel?.active) ?? s;
        id = s?.selectedRegion;
      }
      if (!s || !id) {
        void vscode.window.showInformationMessage('Folio: put the cursor in a converted Markdown block, or select a region in the Folio preview, then reparse.');
        return;
      }
      try {
        await reparseRegion(s, id, {});
      } catch (e) {
        void vscode.window.showErrorMessage(`Folio: reparse failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }),
    { dispose: () => [...sessions.values()].forEach((s) => s.dispose()) },
  );
  void updateContextKey(vscode.window.activeTextEditor);
}
