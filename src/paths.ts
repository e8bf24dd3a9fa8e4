/** Where a PDF's outputs go: beside it, or in `folio.outputDirectory` (relative to the PDF's folder). */
import * as vscode from 'vscode';
import { isAbsolute, join } from 'node:path';
import { homedir } from 'node:os';
import { fitFileName } from '../common/safeWrite';

export function markdownUriFor(pdfUri: vscode.Uri, outputDirectory: string): vscode.Uri {
  return outputUriFor(pdfUri, outputDirectory, '.md');
}

/** `<name><ext>` for the PDF (`.md`, `.docling.json`, …), in the folder markdownUriFor uses. */
export function outputUriFor(pdfUri: vscode.Uri, outputDirectory: string, ext: string): vscode.Uri {
  // Shortened with a hash only when the name would pass the 255-byte limit (a 254-byte `<x>.pdf`);
  // scans given as images (scan.png) get scan.md, as PDFs do.
  const base = fitFileName(
    (pdfUri.path.split('/').pop() ?? 'document.pdf').replace(/\.(pdf|png|jpe?g|tiff?)$/i, ''),
    ext,
  );
  const pdfDir = vscode.Uri.joinPath(pdfUri, '..');
  const dir = outputDirectory.trim();
  if (!dir) return vscode.Uri.joinPath(pdfDir, base);
  if (isAbsolute(dir)) return vscode.Uri.joinPath(vscode.Uri.file(dir), base);
  return vscode.Uri.joinPath(pdfDir, dir, base);
}

/**
 * `folio.models.path` as the backend accepts it: absolute (`~/` expanded); a relative path means
 * nothing to the backend, so it is left out and the VLM reports the missing model folder.
 */
export function modelsDirOption(dir: string): string | undefined {
  const d = dir.startsWith('~/') ? join(homedir(), dir.slice(2)) : dir;
  return isAbsolute(d) ? d : undefined;
}
