/**
 * A document born structured (DOCX, PPTX, XLSX, HTML, Markdown, CSV) through the same page path as
 * a PDF: its reader (server/office, server/html) gives pages of Folio's items, and each page goes
 * through `buildPageResult` (items → DocTags → items → Markdown), so the DoclingDocument, chunks,
 * DocTags and Markdown come out exactly as a PDF's do. No page worker: nothing is rendered. The
 * reading runs in a worker thread of its own (structuredWorker.ts, dist/structuredWorker.js): a
 * sheet of a million cells takes tens of seconds (docs/limits.md), which must not hold the
 * backend's JSON-RPC thread, `folio mcp`'s or `folio serve`'s event loop; a cancel or the
 * document's time budget terminates it. Where that bundle is absent (a test bundle), it reads here.
 * Pictures are kept in memory while the file is read and written only once it has been read
 * whole: a file refused half-way writes nothing.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { Worker } from 'node:worker_threads';
import { fitFileName, isInside, safeWriteFileSync } from '../../common/safeWrite';
import {
  FolioErrorCodes,
  type ConvertLimits,
  type ConvertOptions,
  type ConvertSummary,
  type EngineName,
  type PageResult,
} from '../../common/protocol';
import { CancelledError, FolioError, type FolioErrorCode } from '../errors';
import { parsePageSelection } from './pageSelection';
import { readStructured, type StructuredDocument, type StructuredFormat } from '../office';
import { buildPageResult, joinDocTags, joinPages } from './pageResult';
import type { ConvertSink } from './sink';

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

/** What the reading worker is given (structuredWorker.ts). */
export interface StructuredReadJob {
  path: string;
  format: StructuredFormat;
  options: ConvertOptions;
  maxCells?: number;
}

type ReadResult = ReturnType<typeof readWithPictures>;
export type StructuredReadReply = { ok: ReadResult } | { error: string; code?: FolioErrorCode };

/**
 * `readWithPictures` in a worker thread (dist/structuredWorker.js beside this bundle); read here
 * when that bundle is absent. An abort terminates the worker (CancelledError); so does the
 * document's time budget (`seconds`, 0 = none), with a Timeout error naming the file.
 */
export function readOffThread(
  job: StructuredReadJob,
  signal: AbortSignal | undefined,
  seconds = 0,
  script = join(__dirname, 'structuredWorker.js'),
): Promise<ReadResult> {
  if (signal?.aborted) return Promise.reject(new CancelledError('the conversion'));
  if (!existsSync(script))
    return new Promise((resolve) => resolve(readWithPictures(job.path, job.format, job.options, job.maxCells)));
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, { workerData: job });
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      if (budget) clearTimeout(budget);
      f();
      void worker.terminate();
    };
    const onAbort = () => settle(() => reject(new CancelledError('the conversion')));
    signal?.addEventListener('abort', onAbort);
    const budget =
      seconds > 0
        ? setTimeout(
            () =>
              settle(() =>
                reject(
                  new FolioError(
                    FolioErrorCodes.Timeout,
                    `the document's time budget of ${seconds} s ran out while ${basename(job.path)} was read: nothing was converted. If the file is trusted, raise the limit with --max-document-seconds or the folio.limits.documentSeconds setting; for a large workbook, lower --max-cells.`,
                  ),
                ),
              ),
            seconds * 1000,
          )
        : undefined;
    worker.on('message', (m: StructuredReadReply) =>
      settle(() =>
        'ok' in m ? resolve(m.ok) : reject(m.code !== undefined ? new FolioError(m.code, m.error) : new Error(m.error)),
      ),
    );
    worker.on('error', (e) => settle(() => reject(e)));
    worker.on('exit', (code) =>
      settle(() =>
        reject(
          new FolioError(
            FolioErrorCodes.OutOfMemory,
            `the thread reading ${basename(job.path)} stopped (exit code ${code}) before it answered: the document may be too large to read; nothing was converted.`,
          ),
        ),
      ),
    );
  });
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
export async function convertStructured(
  path: string,
  uri: string,
  format: StructuredFormat,
  options: ConvertOptions,
  sink: ConvertSink,
  signal?: AbortSignal,
  selection: StructuredSelection = {},
): Promise<ConvertSummary> {
  const started = Date.now();
  const engine: EngineName = 'pipeline';
  if (signal?.aborted) throw new CancelledError();
  const { doc, pictures } = await readOffThread(
    { path, format, options, maxCells: selection.limits?.maxCells },
    signal,
    selection.limits?.documentSeconds ?? 0,
  );
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
