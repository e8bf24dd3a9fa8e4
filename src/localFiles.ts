/**
 * The extension's file writes: the `.md` and the sidecar go through common/safeWrite (no
 * write through a link, nothing outside the workspace folder, short temp names), the same rules
 * as the backend and the CLI. `workspace.fs.writeFile` followed a linked `doc.md`. Folio
 * declares `virtualWorkspaces: false`, so every file it writes is a local `file:` one.
 */
import * as vscode from 'vscode';
import { dirname } from 'node:path';
import { safeWriteFile } from '../common/safeWrite';

export function localPath(uri: vscode.Uri): string {
  if (uri.scheme !== 'file') throw new Error(`Folio works on local files only; ${uri.toString()} is not one.`);
  return uri.fsPath;
}

/** The folder writes for `uri` must stay inside: its workspace folder, else its own folder. */
export function writeRoot(uri: vscode.Uri): string {
  const ws = vscode.workspace.getWorkspaceFolder(uri);
  return ws && ws.uri.scheme === 'file' ? ws.uri.fsPath : dirname(localPath(uri));
}

export async function writeLocalFile(uri: vscode.Uri, data: string | Uint8Array): Promise<void> {
  await safeWriteFile(localPath(uri), data, { root: writeRoot(uri) });
}
