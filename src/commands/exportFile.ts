/**
 * The non-Markdown outputs of the convert commands (`folio.outputFormat` = docling, chunks or
 * doctags): names, picture folders, rendering and the guarded write. Shared by "Convert PDF to
 * Markdown" / "Convert PDF to…" (convertPdf.ts) and "Convert All PDFs in Folder".
 *
 * Where the export runs: in the backend (`folio/export`, a worker thread there), not in the
 * extension host. The exporter parses every page's DocTags, may tokenise and read picture files
 * to embed, and stringifies megabytes of JSON: synchronous work that would freeze the extension
 * host on a long document, and it would bring docling-core's model and js-tiktoken into the
 * extension bundle, whose rule is "never the engine" (ARCHITECTURE.md). The pages are already in
 * the extension (streamed for progress), so they are sent back with the request: no state is
 * kept in the backend between the two requests. DocTags needs no export: it is the conversion
 * summary's own `doctags`, written as the CLI writes it.
 */
import * as vscode from 'vscode';
import { lstat, mkdtemp, readFile, rm } from 'node:fs/promises';
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
  ExportRequest,
  type ConvertOptions,
  type ConvertSummary,
  type PageResult,
  type PictureMode,
} from '../../common/protocol';
import type { OutputFormat } from '../context';
import { OUTPUT_FORMATS, isPagesFormat } from '../../common/requestModel';
import { summaryOutput } from '../../common/summaryOutput';
import { localPath, writeLocalFile } from '../localFiles';
import { assetsDirFor, outputUriFor } from '../paths';
import { existingMarkdownDecision, keepBothName } from './markdownGuard';
import type { ExportRecords } from './exportRecords';

export type ExportFormat = Exclude<OutputFormat, 'markdown'>;

import { sha256Hex } from '../../common/sha256';
export { sha256Hex };

export function exportExtension(format: ExportFormat): string {
  return OUTPUT_FORMATS[format].ext;
}

export function exportUriFor(pdfUri: vscode.Uri, outputDirectory: string, format: ExportFormat): vscode.Uri {
  return outputUriFor(pdfUri, outputDirectory, exportExtension(format));
}

/** The output's name without its format extension (`doc (2).docling.json` → `doc (2)`). */
function stemOf(outUri: vscode.Uri, format: ExportFormat): string {
  const name = outUri.path.split('/').pop()!;
  const ext = exportExtension(format);
  return name.toLowerCase().endsWith(ext) ? name.slice(0, -ext.length) : name;
}

export interface PictureFolders {
  /** Options for `folio/convert`: where crops go and what their links are relative to (none for `none`). */
  options: Pick<ConvertOptions, 'markdownDir' | 'assetsDir'>;
  /** The folder the picture links are relative to, for `folio/export`. */
  picturesDir?: string;
  /** Removes the temporary folder of embedded pictures. */
  cleanup(): Promise<void>;
}

/**
 * As `folio convert --images`: `link` keeps crops in `<name>.assets/` beside the output, `embed`
 * reads them from a temporary folder that is removed after the export, `none` saves none. DocTags
 * refer to no picture file, so it saves none either.
 */
export async function pictureFolders(
  outUri: vscode.Uri,
  format: ExportFormat,
  images: PictureMode,
): Promise<PictureFolders> {
  const none = { options: {}, cleanup: async () => undefined };
  if (format === 'doctags' || images === 'none') return none;
  if (images === 'embed') {
    const dir = await mkdtemp(join(tmpdir(), 'folio-pictures-'));
    return {
      options: { markdownDir: dir, assetsDir: join(dir, 'assets') },
      picturesDir: dir,
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  }
  const dir = vscode.Uri.joinPath(outUri, '..').fsPath;
  return {
    options: { markdownDir: dir, assetsDir: assetsDirFor(outUri).fsPath },
    picturesDir: dir,
    cleanup: none.cleanup,
  };
}

/** The output file's text for the pages converted (the backend renders the formats built from pages). */
export async function renderOutput(
  client: LanguageClient,
  format: ExportFormat,
  pdfUri: vscode.Uri,
  summary: ConvertSummary,
  pages: PageResult[],
  pictures: PictureFolders,
  keepFurniture: boolean,
  images: PictureMode,
  token?: vscode.CancellationToken,
): Promise<{ text: string; warnings: string[] }> {
  // What the format is built from is common/requestModel.ts's; the summary's formats are written here.
  if (!isPagesFormat(format)) return { text: summaryOutput(format, summary), warnings: [] };
  return client.sendRequest(
    ExportRequest.type,
    {
      uri: pdfUri.toString(),
      format,
      pages,
      images: pictures.picturesDir ? images : 'none',
      ...(pictures.picturesDir ? { picturesDir: pictures.picturesDir } : {}),
      keepFurniture,
    },
    token,
  );
}

/** The file on disk now: its text (undefined when there is none). Throws for a link or a non-file: Folio never writes through them. */
export async function existingText(outUri: vscode.Uri): Promise<string | undefined> {
  const path = localPath(outUri);
  const st = await lstat(path).catch(() => undefined);
  if (!st) return undefined;
  if (!st.isFile())
    throw new Error(
      `${path} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}; Folio does not write through it. Remove it or set folio.outputDirectory.`,
    );
  return readFile(path, 'utf8');
}

/** Whether an existing output may be replaced without asking: empty, or exactly what Folio last wrote there. */
export function mayReplace(records: ExportRecords, outUri: vscode.Uri, diskText: string | undefined): boolean {
  const dirty = vscode.workspace.textDocuments.find((d) => d.uri.toString() === outUri.toString())?.isDirty ?? false;
  return existingMarkdownDecision({ diskText, dirty, writtenHash: records.get(localPath(outUri))?.sha256 }) === 'write';
}

/** `doc (2).docling.json`, … : the first free name beside `outUri`. */
export function keepBothUri(outUri: vscode.Uri, format: ExportFormat): vscode.Uri {
  const dir = vscode.Uri.joinPath(outUri, '..');
  const free = keepBothName(
    stemOf(outUri, format),
    exportExtension(format),
    (n) => lstatSync(vscode.Uri.joinPath(dir, n).fsPath, { throwIfNoEntry: false }) !== undefined,
  );
  return vscode.Uri.joinPath(dir, free);
}

/**
 * The output to write: `outUri` when nothing of the user's is there, else what the user chose
 * (Replace, Keep Both → a free name, Cancel → undefined) — the `.md`'s rules. `seen` is the text
 * found, so the write can tell whether the file changed during the conversion.
 */
export async function chooseExportTarget(
  records: ExportRecords,
  outUri: vscode.Uri,
  format: ExportFormat,
): Promise<{ uri: vscode.Uri; seen: string | undefined } | undefined> {
  const diskText = await existingText(outUri);
  if (mayReplace(records, outUri, diskText)) return { uri: outUri, seen: diskText };
  const name = outUri.path.split('/').pop()!;
  const replace = 'Replace';
  const keepBoth = 'Keep Both';
  const answer = await vscode.window.showWarningMessage(
    `${name} already exists and has text Folio did not write.`,
    {
      modal: true,
      detail: 'Replace it with the new conversion, keep both (the new one goes to a new file), or cancel.',
    },
    replace,
    keepBoth,
  );
  if (answer === replace) {
    if (vscode.workspace.textDocuments.find((d) => d.uri.toString() === outUri.toString())?.isDirty)
      throw new Error(`${name} has unsaved changes; save or revert them, then convert again.`);
    return { uri: outUri, seen: diskText };
  }
  if (answer !== keepBoth) return undefined;
  return { uri: keepBothUri(outUri, format), seen: undefined };
}

/**
 * Writes the output (never through a link, never outside the workspace folder) and records it.
 * When the file changed while the PDF was converting (it is not what was there when the user
 * chose), the new text goes to a free name instead: nothing of the user's is replaced unasked.
 */
export async function writeExport(
  records: ExportRecords,
  target: { uri: vscode.Uri; seen: string | undefined },
  format: ExportFormat,
  text: string,
  pdfSha256: string,
): Promise<vscode.Uri> {
  let uri = target.uri;
  const now = await existingText(uri);
  if (now !== undefined && now !== target.seen && !mayReplace(records, uri, now)) uri = keepBothUri(uri, format);
  await writeLocalFile(uri, text);
  await records.set(localPath(uri), { sha256: sha256Hex(text), pdfSha256 });
  return uri;
}
