/**
 * Where a PDF's outputs go: beside it, or in `folio.outputDirectory` (relative to the PDF's
 * folder, or absolute). The folder must be inside the PDF's workspace folder (a PDF in none: its
 * own folder): the setting may come from a cloned repository's `.vscode/settings.json`, and
 * SECURITY.md promises that Folio writes only inside the workspace.
 */
import * as vscode from 'vscode';
import { dirname, isAbsolute, join } from 'node:path';
import { homedir } from 'node:os';
import { fitFileName, isInside } from '../common/safeWrite';
import { OUTPUT_FORMATS } from '../common/requestModel';

export function markdownUriFor(pdfUri: vscode.Uri, outputDirectory: string): vscode.Uri {
  return outputUriFor(pdfUri, outputDirectory, '.md');
}

/** `<name><ext>` for the PDF (`.md`, `.docling.json`, …), in the folder markdownUriFor uses. */
export function outputUriFor(pdfUri: vscode.Uri, outputDirectory: string, ext: string): vscode.Uri {
  // Shortened with a hash only when the name would pass the 255-byte limit (a 254-byte `<x>.pdf`);
  // scans given as images (scan.png) get scan.md, as PDFs do.
  const base = fitFileName(
    (pdfUri.path.split('/').pop() ?? 'document.pdf').replace(/\.(pdf|png|jpe?g|tiff?|docx|pptx|xlsx|html?|csv)$/i, ''),
    ext,
  );
  const pdfDir = vscode.Uri.joinPath(pdfUri, '..');
  const dir = outputDirectory.trim();
  if (!dir) return vscode.Uri.joinPath(pdfDir, base);
  const folder = isAbsolute(dir) ? vscode.Uri.file(dir) : vscode.Uri.joinPath(pdfDir, dir);
  if (pdfUri.scheme === 'file') {
    const ws = vscode.workspace.getWorkspaceFolder(pdfUri);
    const root = ws && ws.uri.scheme === 'file' ? ws.uri.fsPath : dirname(pdfUri.fsPath);
    // Lexical check; a link inside the folder that leads out is refused when writing (safeWrite).
    if (folder.scheme !== 'file' || !isInside(root, folder.fsPath))
      throw new Error(
        `folio.outputDirectory "${dir}" leads to ${folder.fsPath}, outside ${root}${ws ? ' (the workspace folder)' : " (the PDF's folder)"}; ` +
          'Folio writes only inside it. Set folio.outputDirectory to a folder inside the workspace (relative to the PDF, or absolute), or leave it empty.',
      );
  }
  return vscode.Uri.joinPath(folder, base);
}

/**
 * `folio.models.path` as the backend accepts it: absolute (`~/` expanded); a relative path means
 * nothing to the backend, so it is left out and the VLM reports the missing model folder.
 */
export function modelsDirOption(dir: string): string | undefined {
  const d = dir.startsWith('~/') ? join(homedir(), dir.slice(2)) : dir;
  return isAbsolute(d) ? d : undefined;
}

/** Output extensions a pictures folder's name leaves out (`doc.docling.json` → `doc.assets`). */
const OUTPUT_EXTENSIONS: readonly string[] = Object.values(OUTPUT_FORMATS).map((f) => f.ext);

/**
 * The folder of an output's linked pictures: `<output stem>.assets/` beside the output (`doc.md`,
 * `doc (2).docling.json` → `doc.assets`, `doc (2).assets`), shortened as the output's own name is
 * when it would pass the 255-byte limit. The rule of `folio convert` (server/convertCommand/
 * pictures.ts), so the CLI and the extension link the same files.
 */
export function assetsDirFor(outUri: vscode.Uri): vscode.Uri {
  const name = outUri.path.split('/').pop() ?? '';
  const ext = OUTPUT_EXTENSIONS.find((e) => name.toLowerCase().endsWith(e));
  const stem = ext ? name.slice(0, -ext.length) : name;
  return vscode.Uri.joinPath(outUri, '..', fitFileName(stem, '.assets'));
}
