/**
 * A document born structured (DOCX, PPTX, XLSX, HTML, Markdown, CSV) through the same page path as
 * a PDF: its reader (server/office, server/html) gives pages of Folio's items, and each page goes
 * through `buildPageResult` (items → DocTags → items → Markdown), so the DoclingDocument, chunks,
 * DocTags and Markdown come out exactly as a PDF's do. No page worker: nothing is rendered, and
 * the reading runs in a worker thread when the caller is the JSON-RPC thread (server/main.ts).
 * Pictures are kept in memory while the file is read and written only once it has been read
 * whole: a file refused half-way writes nothing.
 */
import { basename, dirname, join, relative, sep } from 'node:path';
import { fitFileName, isInside, safeWriteFileSync } from '../../common/safeWrite';
import {
  FolioErrorCodes,
  type ConvertLimits,
  type ConvertOptions,
  type ConvertSummary,
  type EngineName,
  type PageResult,
} from '../../common/protocol';
import { CancelledError, FolioError } from '../errors';
import { parsePageSelection } from './pageSelection';
import { readStructured, type StructuredDocument, type StructuredFormat } from '../office';
import { buildPageResult, joinDocTags, joinPages } from './pageResult';
import type { ConvertSink } from './convertDocument';

export { structuredFormatOf } from '../office';

interface PendingPicture {
  file: string;
  data: Uint8Array;
}

/**
 * Reads the file, keeping its pictures to write later; `assetsDir` unset = placeholders only.
 * `maxCells` is the workbook/CSV cell limit (ConvertLimits.maxCells; the reader's default when unset).
 */
export function readWithPictures(
  path: string,
  format: StructuredFormat,
  options: ConvertOptions,
  maxCells?: number,
): { doc: StructuredDocument; pictures: PendingPicture[] } {
  const pictures: PendingPicture[] = [];
  const stem = basename(path)
    .replace(/\.[^.]+$/, '')
    .replace(/[^\p{L}\p{N}._-]+/gu, '_');
  const assetsDir = options.assetsDir;
  const mdDir = options.markdownDir ?? (assetsDir ? dirname(assetsDir) : undefined);
  const doc = readStructured(path, format, {
    ...(maxCells !== undefined ? { maxCells } : {}),
    savePicture:
      assetsDir && mdDir
        ? (data, ext) => {
            const file = join(
              assetsDir,
              fitFileName(`${stem}-${pictures.length + 1}`, `.${ext === 'jpeg' ? 'jpg' : ext}`),
            );
            pictures.push({ file, data });
            return relative(mdDir, file).split(sep).join('/');
          }
        : undefined,
  });
  return { doc, pictures };
}

/** Writes the pictures a successful read kept; one that cannot be written is a warning, its link stays. */
export function writePictures(pictures: PendingPicture[], options: ConvertOptions): string[] {
  const warnings: string[] = [];
  const mdDir = options.markdownDir;
  for (const p of pictures) {
    try {
      const root = mdDir && isInside(mdDir, dirname(p.file)) ? mdDir : dirname(dirname(p.file));
      safeWriteFileSync(p.file, p.data, { root });
    } catch (e) {
      warnings.push(`picture ${basename(p.file)} could not be saved: ${(e as Error).message}`);
    }
  }
  return warnings;
}

/** What is taken of a structured document: the page selection (slides, sheets) and the limits. */
export interface StructuredSelection {
  /** "1-3,7" as for a PDF: slides of a deck, sheets of a workbook; a Word/HTML document is page 1. */
  pages?: string;
  /** Resolved limits (server/worker/limits.ts): `maxPages` of the selection, `maxCells` of a workbook. */
  limits?: Required<ConvertLimits>;
}

/** The summary of a structured document, its pages delivered to `sink` in order. */
export function convertStructured(
  path: string,
  uri: string,
  format: StructuredFormat,
  options: ConvertOptions,
  sink: ConvertSink,
  signal?: AbortSignal,
  read: typeof readWithPictures = readWithPictures,
  selection: StructuredSelection = {},
): ConvertSummary {
  const started = Date.now();
  const engine: EngineName = 'pipeline';
  if (signal?.aborted) throw new CancelledError();
  const { doc, pictures } = read(path, format, options, selection.limits?.maxCells);
  // The selection is checked before a picture is written: a refused one writes nothing.
  const wanted = new Set(parsePageSelection(selection.pages, doc.pages.length));
  const maxPages = selection.limits?.maxPages ?? Infinity;
  if (wanted.size > maxPages)
    throw new FolioError(
      FolioErrorCodes.TooLarge,
      `${basename(path)} ${selection.pages ? `selects ${wanted.size} pages` : `has ${doc.pages.length} pages (slides or sheets)`}, more than the page limit of ${maxPages}: nothing was converted. If the file is trusted, raise the limit with --max-pages or the folio.limits.maxPages setting, or convert part of it with --pages.`,
    );
  const pages = doc.pages.filter((p) => wanted.has(p.page));
  const warnings = [...doc.warnings, ...writePictures(pictures, options)];
  for (const w of warnings) sink.log?.('warning', `${basename(path)}: ${w}`);
  const results: PageResult[] = [];
  sink.progress?.(0, pages.length);
  let cancelled = false;
  for (const page of pages) {
    if (signal?.aborted) {
      cancelled = true;
      break;
    }
    const result = buildPageResult({
      page: page.page,
      width: page.width,
      height: page.height,
      engine,
      items: page.items,
      keepFurniture: options.keepFurniture ?? false,
      ocr: false,
      warnings: [],
    });
    results.push(result);
    sink.page(result);
    sink.progress?.(results.length, pages.length);
  }
  return {
    uri,
    pageCount: doc.pages.length,
    pagesDone: results.map((r) => r.page),
    cancelled,
    doctags: joinDocTags(results),
    markdown: joinPages(results),
    pageErrors: [],
    warnings,
    engine,
    elapsedMs: Date.now() - started,
  };
}
