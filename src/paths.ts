/** Where a PDF's Markdown goes: beside it, or in `folio.outputDirectory` (relative to the PDF's folder). */
import * as vscode from 'vscode';
import { isAbsolute } from 'node:path';

export function markdownUriFor(pdfUri: vscode.Uri, outputDirectory: string): vscode.Uri {
  // Scans given as images (scan.png) get scan.md, as PDFs do.
  const base = (pdfUri.path.split('/').pop() ?? 'document.pdf').replace(/\.(pdf|png|jpe?g|tiff?)$/i, '') + '.md';
  const pdfDir = vscode.Uri.joinPath(pdfUri, '..');
  const dir = outputDirectory.trim();
  if (!dir) return vscode.Uri.joinPath(pdfDir, base);
  if (isAbsolute(dir)) return vscode.Uri.joinPath(vscode.Uri.file(dir), base);
  return vscode.Uri.joinPath(pdfDir, dir, base);
}
