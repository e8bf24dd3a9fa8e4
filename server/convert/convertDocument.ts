/**
 * The conversion orchestrator, shared by the backend process (server/main.ts) and the CLI.
 *
 * Pages are analysed in the page-worker pool, several at once, and handed to the sink strictly
 * in page order as soon as each page and its small look-ahead window are done: page headers and
 * footers are recognised by repetition across neighbouring pages (two ahead covers headers that
 * alternate between left and right pages), so page i waits for up to FURNITURE_WINDOW pages
 * after it, never for the whole document. At most a bounded number of
 * pages are in flight or waiting, so a 1,000-page PDF streams in constant memory.
 *
 * Cancellation (AbortSignal) stops scheduling, abandons running pages (their workers are
 * terminated after a short grace) and returns the summary of the pages already delivered.
 * The document's time budget (`limits.documentSeconds`) ends it the same way, with `stopped`
 * and a page error saying which pages were not converted; each page's pdf.js work has a memory
 * budget (`limits.pageMemoryMb`, enforced in the worker), past which that page alone fails.
 */
import { randomUUID } from 'node:crypto';
import { lstatSync, statSync } from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultPageCacheDir } from '../util/cache';
import {
  type ConvertLimits,
  type ConvertOptions,
  type ConvertSummary,
  type EngineName,
  type ErrorKind,
  type PageError,
  type PageResult,
  FolioErrorCodes,
} from '../../common/protocol';
import { CancelledError, FolioError, isCancelled, isFolioError, messageOf } from '../errors';
import type { AnalyzeOptions, PageAnalysis } from '../model/analysis';
import { markFurniture } from './furniture';
import type { PageWorkerPool } from '../worker/pool';
import { resolveLimits } from '../worker/limits';
import { countPageSelection, parsePageSelection } from './pageSelection';
import { buildPageResult, failedPageResult, joinDocTags, joinPages } from './pageResult';
import { vlmPageEngine, type VlmPageEngine } from './vlmEngine';
import { pdfForInput } from './imageInput';
import { pagePartialStream } from './pagePartial';
import type { ConvertSink } from './sink';
import { convertStructured, structuredFormatOf } from './structuredInput';

/** Pages after page i that are analysed before page i is emitted (page header/footer repetition). */
export const FURNITURE_WINDOW = 2;

export interface ConvertInput {
  /** Absolute path or file: URI. */
  uri: string;
  pages?: string;
  password?: string;
  options?: ConvertOptions;
  /** Resource limits (validated here; absent fields take the defaults). */
  limits?: ConvertLimits;
}

export type { ConvertSink } from './sink';

export function toPath(uri: string): string {
  const p = uri.startsWith('file:') ? fileURLToPath(uri) : uri;
  return isAbsolute(p) ? p : resolve(p);
}

/** Per-user, mode 0700 (server/util/cache); never a folder shared in /tmp. */
export function defaultCacheDir(): string {
  return defaultPageCacheDir();
}

export function analyzeOptions(options: ConvertOptions = {}): AnalyzeOptions {
  const a: AnalyzeOptions = {
    ocr: options.ocr ?? 'auto',
    renderImages: options.renderImages ?? false,
    scale: options.scale ?? 2,
    cacheDir: options.cacheDir ?? defaultCacheDir(),
  };
  if (options.assetsDir) a.assetsDir = options.assetsDir;
  if (options.markdownDir) a.markdownDir = options.markdownDir;
  if (options.providers) a.providers = options.providers;
  if (options.keepHiddenText) a.keepHiddenText = true;
  return a;
}

/** Checks what can be checked without parsing, so the common mistakes get a precise message. */
function checkFile(path: string): void {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new FolioError(FolioErrorCodes.FileNotFound, `${path} is not a file.`);
    size = st.size;
  } catch (e) {
    if (e instanceof FolioError) throw e;
    throw new FolioError(FolioErrorCodes.FileNotFound, `${path} was not found: check the path.`);
  }
  if (size === 0) {
    throw new FolioError(
      FolioErrorCodes.InvalidPdf,
      `${basename(path)} is empty (0 bytes): it is not a PDF; re-download or re-export it.`,
    );
  }
}

/**
 * A linked assets folder (`doc.assets -> elsewhere`, as a cloned repository may ship): safeWrite
 * refuses to write through it, so every picture would silently become a placeholder. Said once,
 * before the pages (issue 21 item 13).
 */
function linkedAssetsWarning(assetsDir: string | undefined): string | undefined {
  if (!assetsDir) return undefined;
  if (!lstatSync(assetsDir, { throwIfNoEntry: false })?.isSymbolicLink()) return undefined;
  return `the pictures folder ${assetsDir} is a symbolic link: Folio does not write through links, so this document's pictures are not saved and stay placeholders. Replace the link with a real folder to keep them.`;
}

export async function convertDocument(
  pool: PageWorkerPool,
  input: ConvertInput,
  sink: ConvertSink,
  signal?: AbortSignal,
): Promise<ConvertSummary> {
  const started = Date.now();
  const path = toPath(input.uri);
  const options = input.options ?? {};
  const engine: EngineName = options.engine ?? 'pipeline';
  const limits = resolveLimits(input.limits);
  checkFile(path);
  // Word, PowerPoint, Excel, HTML, Markdown, CSV: read from their own structure (structuredInput.ts).
  const structured = structuredFormatOf(path);
  if (structured)
    return convertStructured(path, input.uri, structured, options, sink, signal, {
      pages: input.pages,
      limits,
    });
  const docId = randomUUID();
  const results: PageResult[] = [];
  const pageErrors: PageError[] = [];
  const warnings: string[] = [];
  const linkedAssets = linkedAssetsWarning(options.assetsDir);
  if (linkedAssets) {
    warnings.push(linkedAssets);
    sink.log?.('warning', `${basename(path)}: ${linkedAssets}`);
  }
  let provider: string | undefined;
  let pageCount = 0;
  let cancelled = false;
  const inner = new AbortController();
  const onAbort = () => inner.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) inner.abort();
  // The time budget stops the document like a cancel: running pdf.js work is terminated. It runs
  // from here, so decoding an image input and opening the PDF are inside it (issue 21 items 7, 8).
  let outOfTime = false;
  const budget =
    limits.documentSeconds > 0
      ? setTimeout(() => {
          outOfTime = true;
          inner.abort();
        }, limits.documentSeconds * 1000)
      : undefined;
  let selectedPages: number[] = [];
  let source: { path: string; cleanup: () => void } | undefined;

  let vlm: VlmPageEngine | undefined;
  try {
    // An image (scan.png) becomes an image-only PDF → OCR; its pixels and pages are checked
    // from the header before anything is decoded (imageInput.ts).
    source = await pdfForInput(path, { signal: inner.signal, maxPages: limits.maxPages });
    const doc = { docId, path: source.path, password: input.password, pageMemoryMb: limits.pageMemoryMb };
    pageCount = await pool.open(doc, inner.signal);
    // The page limit, before a page is listed: a 1 KB PDF can declare a million pages.
    const wanted = countPageSelection(input.pages, pageCount);
    if (wanted > limits.maxPages) {
      throw new FolioError(
        FolioErrorCodes.TooLarge,
        `${basename(path)} ${input.pages ? `selects ${wanted} pages` : `has ${pageCount} pages`}, more than the page limit of ${limits.maxPages}: nothing was converted. If the file is trusted, raise the limit with --max-pages or the folio.limits.maxPages setting, or convert part of it with --pages.`,
      );
    }
    const selected = parsePageSelection(input.pages, pageCount);
    selectedPages = selected;
    sink.progress?.(0, selected.length);
    const aopts = analyzeOptions(options);
    if (engine === 'vlm') {
      // The VLM needs the page image; the pipeline still runs (priors, drafts, fallback).
      aopts.renderImages = true;
      vlm = await vlmPageEngine(options, (m) => sink.log?.('info', m));
    }

    const analyses = new Map<number, Promise<PageAnalysis | Error>>();
    const done = new Map<number, PageAnalysis | Error>();
    const schedule = (i: number) => {
      if (i >= selected.length || analyses.has(i)) return;
      const page = selected[i];
      const p = pool.analyze(docId, page, aopts, inner.signal).then(
        (a) => a,
        (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
      );
      p.then((r) => done.set(i, r));
      analyses.set(i, p);
    };
    // In flight or waiting at most: the workers, plus the look-ahead window, plus one.
    const ahead = pool.size + FURNITURE_WINDOW + 1;

    for (let i = 0; i < selected.length; i++) {
      for (let j = i; j < Math.min(selected.length, i + ahead); j++) schedule(j);
      const lastNeeded = Math.min(selected.length - 1, i + FURNITURE_WINDOW);
      for (let j = i; j <= lastNeeded; j++) await analyses.get(j);
      if (inner.signal.aborted) break;
      const current = done.get(i)!;
      const page = selected[i];
      let result: PageResult;
      if (current instanceof Error) {
        if (isCancelled(current)) break;
        const { kind, reason } = pageFailure(current);
        // A document-level problem (password, damage) surfaces on the first page: report it as
        // the document's error rather than as N identical page errors. A page's own limits
        // (memory budget, time, heap) are that page's problem only.
        if (isFolioError(current) && DOCUMENT_KINDS.has(kind) && results.length === 0 && i === 0) throw current;
        const message = `page ${page}: ${reason}`;
        pageErrors.push({ page, kind, message });
        sink.log?.('warning', `${basename(path)}: ${message}`);
        result = failedPageResult(page, engine, reason, kind);
      } else {
        const window: PageAnalysis[] = [];
        let self = 0;
        for (let j = Math.max(0, i - FURNITURE_WINDOW); j <= lastNeeded; j++) {
          const a = done.get(j);
          if (a && !(a instanceof Error)) {
            if (j === i) self = window.length;
            window.push(a);
          }
        }
        markFurniture(window, self);
        // The next page's VLM tiles are computed while this one decodes (issue 38).
        const next = done.get(i + 1);
        if (vlm?.prefetch && next && !(next instanceof Error)) vlm.prefetch(next);
        result = await pageResultFor(current, options, engine, vlm, inner.signal, sink);
        if (result.provider) provider = result.provider;
      }
      results.push(result);
      sink.page(result);
      sink.progress?.(results.length, selected.length);
      // Forget what the look-back window no longer needs.
      const old = i - FURNITURE_WINDOW;
      if (old >= 0) {
        analyses.delete(old);
        done.delete(old);
      }
    }
    cancelled = inner.signal.aborted;
  } catch (e) {
    if (!isCancelled(e) || !inner.signal.aborted) throw e;
    cancelled = true;
  } finally {
    clearTimeout(budget);
    signal?.removeEventListener('abort', onAbort);
    inner.abort();
    const cleanup = source?.cleanup;
    void pool.close(docId).finally(() => cleanup?.());
  }

  let stopped: ConvertSummary['stopped'];
  if (outOfTime && !signal?.aborted) {
    cancelled = false;
    const first = selectedPages[results.length] ?? 1;
    const last = selectedPages[selectedPages.length - 1] ?? first;
    const which = first === last ? `page ${first} was` : `pages ${first}–${last} were`;
    const message = `the document's time budget of ${limits.documentSeconds} s ran out: ${which} not converted (${results.length} page(s) done are kept). If the file is trusted, raise the limit with --max-document-seconds or the folio.limits.documentSeconds setting`;
    stopped = { limit: 'documentSeconds', message };
    pageErrors.push({ page: first, kind: 'timeout', message: `page ${first}: ${message}` });
    sink.log?.('warning', `${basename(path)}: ${message}`);
  }
  for (const r of results) for (const w of r.warnings) warnings.push(`page ${r.page}: ${w}`);
  const summary: ConvertSummary = {
    uri: input.uri,
    pageCount,
    pagesDone: results.filter((r) => !r.error).map((r) => r.page),
    cancelled,
    doctags: joinDocTags(results),
    markdown: joinPages(results),
    pageErrors,
    warnings,
    engine,
    elapsedMs: Date.now() - started,
  };
  if (provider) summary.provider = provider;
  if (stopped) summary.stopped = stopped;
  return summary;
}

/** Kinds that, on the first page, are the whole document's failure (the others stay page errors). */
const DOCUMENT_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>([
  'input',
  'not-found',
  'damaged',
  'encrypted',
  'password',
  'empty',
  'model',
]);

/**
 * A page failure's kind and its words for the user. Our own errors (FolioError: a timeout, a
 * worker out of memory, a budget) already say what happened; anything else comes from pdf.js
 * parsing the page ("Illegal character: 41", "End of file inside array.") and says nothing to a
 * user, so it is a `damaged` page, wrapped to say so, keeping the parser's words for a bug report.
 */
export function pageFailure(e: Error): { kind: ErrorKind; reason: string } {
  const ours = isFolioError(e)
    ? e
    : new FolioError(
        FolioErrorCodes.InvalidPdf,
        `this page is damaged or uses a PDF feature Folio cannot read (${e.message.replace(/\s+$/, '')})`,
      );
  return { kind: ours.kind, reason: ours.message };
}

async function pageResultFor(
  a: PageAnalysis,
  options: ConvertOptions,
  engine: EngineName,
  vlm: VlmPageEngine | undefined,
  signal: AbortSignal,
  sink: ConvertSink,
): Promise<PageResult> {
  const base = {
    page: a.page,
    width: a.width,
    height: a.height,
    keepFurniture: options.keepFurniture ?? false,
    ocr: a.ocr,
    rotation: a.rotation,
    provider: a.provider,
    image: a.image,
    warnings: [...a.warnings],
  };
  if (engine === 'vlm' && vlm) {
    // Closed before the page's result goes to the sink, so no partial follows it.
    const partials = sink.partial
      ? pagePartialStream(a.page, 'vlm', (p) => sink.partial!(p), signal, { keepFurniture: base.keepFurniture })
      : undefined;
    try {
      const out = await vlm.convertPage(a, signal, partials ? (t) => partials.push(t) : undefined);
      partials?.close();
      return buildPageResult({
        ...base,
        engine: 'vlm',
        doctags: out.doctags,
        provider: out.provider,
        warnings: [...base.warnings, ...out.warnings],
      });
    } catch (e) {
      if (signal.aborted) throw new CancelledError('the page');
      const reason = messageOf(e);
      sink.log?.('warning', `page ${a.page}: the VLM failed (${reason}); using the pipeline's result for this page`);
      base.warnings.push(`VLM failed (${reason}); this page comes from the pipeline engine`);
    } finally {
      partials?.close();
    }
  }
  return buildPageResult({ ...base, engine: 'pipeline', items: a.items });
}
