/**
 * Where the linked view goes: in the group where the PDF was shown (VS Code shows a PDF as text
 * when it opens one; that tab is replaced, so a conversion never leaves the raw bytes open), with
 * the `.md` editor in the group to its right.
 */
import * as vscode from 'vscode';

/** Tabs showing `pdfUri` as text (or as VS Code's binary placeholder: the same tab input). */
function rawPdfTabs(pdfUri: vscode.Uri): vscode.Tab[] {
  const key = pdfUri.toString();
  return vscode.window.tabGroups.all.flatMap((g) =>
    g.tabs.filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === key),
  );
}

/** The group for the view: the raw PDF's (first such tab), else the active group's, else the first. */
export function viewColumnFor(pdfUri: vscode.Uri | undefined): vscode.ViewColumn {
  const tab = pdfUri ? rawPdfTabs(pdfUri)[0] : undefined;
  return tab?.group.viewColumn ?? vscode.window.tabGroups.activeTabGroup?.viewColumn ?? vscode.ViewColumn.One;
}

/**
 * Closes the PDF's text tabs. Called after the view opened in the same group, so the group is not
 * emptied (and removed) in between.
 */
export async function closeRawPdfTabs(pdfUri: vscode.Uri): Promise<void> {
  const tabs = rawPdfTabs(pdfUri);
  if (tabs.length) await vscode.window.tabGroups.close(tabs, true).then(undefined, () => undefined);
}

/** Shows the `.md` in the group right of the view, without taking the focus. */
export async function showMarkdownBeside(mdUri: vscode.Uri, viewColumn: vscode.ViewColumn | undefined): Promise<void> {
  const column = viewColumn ? ((viewColumn + 1) as vscode.ViewColumn) : vscode.ViewColumn.Beside;
  await vscode.window
    .showTextDocument(mdUri, { viewColumn: column, preserveFocus: true, preview: false })
    .then(undefined, () => undefined);
}
