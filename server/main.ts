/**
 * Folio's backend: a language-server-style process speaking JSON-RPC over stdio
 * (vscode-languageserver). The extension host starts it with vscode-languageclient; tests and
 * tools can start it with `node dist/server.js --stdio`.
 *
 * This thread only routes messages and assembles results: every page is parsed, rendered and
 * OCR'd in the worker pool (server/worker), so `$/cancelRequest` is handled at once.
 */
import {
  createConnection,
  ErrorCodes,
  LSPErrorCodes,
  ProposedFeatures,
  ResponseError,
  type CancellationToken,
} from 'vscode-languageserver/node';
import { WorkDoneProgress } from 'vscode-languageserver-protocol';
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import {
  ConvertRequest,
  ExportRequest,
  LogNotification,
  PagePartialNotification,
  PullModelRequest,
  ReparseRegionRequest,
  pageProgressMessage,
  type ConvertParams,
  type ReparseRegionParams,
  type ReparseRegionResult,
} from '../common/protocol';
import { PageWorkerPool } from './worker/pool';
import { analyzeOptions, convertDocument, toPath } from './convert/convertDocument';
import { CancelledError, isCancelled, isFolioError, messageOf } from './errors';
import { renderRegion } from './convert/region';
import { disposeVlmEngines, vlmPageEngine } from './convert/vlmEngine';
import { parseDocTags } from './doctags/parse';
import { toGrid } from './model/items';
import { checkConvertParams, checkReparseParams } from './convert/checkParams';
import { evictCache } from './util/cache';
import { IdleMap } from './util/idleMap';
import { checkExportParams } from './export/checkExportParams';
import { exportInWorker, exportJob } from './export/inWorker';
import { checkPullModelParams, pullModelRequest } from './modelStore/pullRequest';
import { enableCompileCache } from './util/compileCache';

enableCompileCache();
const connection = createConnection(ProposedFeatures.all);
const pool = new PageWorkerPool({ size: Number(process.env.FOLIO_WORKERS) || 2 });

function log(level: 'info' | 'warning' | 'error', message: string): void {
  void connection.sendNotification(LogNotification.type, { level, message });
}

/** Turns a cancellation token into an AbortSignal for the orchestrator. */
function abortSignal(token: CancellationToken): AbortSignal {
  const ac = new AbortController();
  if (token.isCancellationRequested) ac.abort();
  else token.onCancellationRequested(() => ac.abort());
  return ac.signal;
}

/** Any error → the JSON-RPC error the client reads: a cancel is LSP's RequestCancelled, ours keep their code (docs/errors.md). */
function toResponseError(e: unknown): ResponseError<void> {
  if (isCancelled(e)) return new ResponseError(LSPErrorCodes.RequestCancelled, messageOf(e));
  if (isFolioError(e)) return new ResponseError(e.code, e.message);
  return new ResponseError(ErrorCodes.InternalError, messageOf(e));
}

// Settings arrive with each request (`options`, and `limits` from the user's folio.limits.*):
// the backend asks the client for nothing (docs/limits.md).
connection.onInitialize(() => {
  return {
    capabilities: {},
    serverInfo: { name: 'folio-backend', version: '0.1.0' },
  };
});

/** Parameters are checked on every request: options can come from a workspace file (server/convert/checkParams). */
function refuseBadParams(problem: string | undefined): void {
  if (problem) throw new ResponseError(ErrorCodes.InvalidParams, `Folio refused the request: ${problem}`);
}

connection.onRequest(ConvertRequest.type, async (params: ConvertParams, token: CancellationToken) => {
  refuseBadParams(checkConvertParams(params));
  const signal = abortSignal(token);
  const workDone = params.workDoneToken;
  const partial = params.partialResultToken;
  const name = toPath(params.uri).split(/[\\/]/).pop();
  if (workDone !== undefined) {
    void connection.sendProgress(WorkDoneProgress.type, workDone, {
      kind: 'begin',
      title: `Converting ${name}`,
      cancellable: true,
    });
  }
  const collected: import('../common/protocol').PageResult[] = [];
  // Partials only where asked for and addressable (the token says which request they belong to);
  // `open` guards against one slipping out once the request has answered.
  let open = true;
  const wantPartials = params.pagePartials === true && partial !== undefined;
  try {
    const summary = await convertDocument(
      pool,
      params,
      {
        page: (p) => {
          if (partial !== undefined) void connection.sendProgress(ConvertRequest.partialResult, partial, p);
          else collected.push(p);
        },
        progress: (done, total) => {
          // Said once the PDF is open: the log shows a conversion under way (and its size) before any page.
          if (done === 0) log('info', `${name}: converting ${total} page(s)`);
          if (workDone !== undefined) {
            void connection.sendProgress(WorkDoneProgress.type, workDone, {
              kind: 'report',
              message: pageProgressMessage(done, total),
              percentage: total > 0 ? Math.round((done / total) * 100) : 0,
            });
          }
        },
        log,
        partial: wantPartials
          ? (p) => {
              if (open)
                void connection.sendNotification(PagePartialNotification.type, {
                  ...p,
                  partialResultToken: partial!,
                  uri: params.uri,
                });
            }
          : undefined,
      },
      signal,
    );
    if (partial === undefined) summary.pages = collected;
    // Keep the page-image cache under its size cap (only Folio's own entry names are removed).
    if (params.options?.cacheDir) evictCache(params.options.cacheDir);
    log(
      'info',
      `${name}: ${summary.pagesDone.length}/${summary.pageCount} pages in ${summary.elapsedMs} ms${summary.cancelled ? ' (cancelled)' : ''}`,
    );
    return summary;
  } catch (e) {
    if (!isCancelled(e)) log('error', `${name}: ${messageOf(e)}`);
    throw toResponseError(e);
  } finally {
    open = false;
    if (workDone !== undefined) void connection.sendProgress(WorkDoneProgress.type, workDone, { kind: 'end' });
  }
});

function mtimeOf(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;
}

/** Idle time after which a document opened for reparse is closed (`FOLIO_REPARSE_IDLE_MS`). */
const REPARSE_IDLE_MS = Number(process.env.FOLIO_REPARSE_IDLE_MS) || 5 * 60_000;

/**
 * Documents opened for region reparse, by path, modification time and password: kept open for
 * the next reparse, closed in the workers after REPARSE_IDLE_MS without one.
 */
const reparseDocs = new IdleMap<{ docId: string; opened?: Promise<number> }>(REPARSE_IDLE_MS, (key, d) => {
  log('info', `reparse: closed ${key.split('\u0000')[0].split(/[\\/]/).pop()} (idle, changed on disk, or not opened)`);
  void pool.close(d.docId);
});

connection.onRequest(
  ReparseRegionRequest.type,
  async (params: ReparseRegionParams, token: CancellationToken): Promise<ReparseRegionResult> => {
    refuseBadParams(checkReparseParams(params));
    const signal = abortSignal(token);
    const path = toPath(params.uri);
    // Keyed by modification time too, so a PDF changed on disk is opened afresh (and the old one closed).
    const key = `${path}\u0000${mtimeOf(path)}\u0000${params.password ?? ''}`;
    for (const k of reparseDocs.keys((k) => k.startsWith(`${path}\u0000`) && k !== key)) reparseDocs.close(k);
    const held = reparseDocs.acquire(key, () => ({ docId: randomUUID() }));
    try {
      const doc = held.value;
      const docId = doc.docId;
      doc.opened ??= pool.open({ docId, path, password: params.password }, signal);
      await doc.opened.catch((e: unknown) => {
        // Not kept: the next reparse tries again (after a password, or once the file is fixed).
        held.release();
        reparseDocs.close(key);
        throw e;
      });
      const aopts = analyzeOptions(params.options);
      const warnings: string[] = [];
      /** The answer for the region as one engine read it. */
      const answer = (item: Parameters<typeof renderRegion>[0], engine: 'vlm' | 'pipeline', notes: string[]) => ({
        uri: params.uri,
        version: params.version,
        page: params.page,
        regionId: params.regionId,
        ...renderRegion(item),
        engine,
        warnings: notes,
      });
      if (params.options?.engine === 'vlm') {
        // The VLM reads the region's crop of the rendered page with a class-specific prompt; any
        // failure falls back to the pipeline's reading of the same box.
        try {
          const vlm = await vlmPageEngine(params.options, (m) => log('info', m));
          const page = await pool.analyze(docId, params.page, { ...aopts, renderImages: true }, signal);
          const out = await vlm.parseRegion(page, params.bbox, params.cls, signal);
          const parsed = parseDocTags(out.doctags)[0]?.items[0];
          if (parsed)
            return answer({ ...parsed, bbox: params.bbox, grid: toGrid(params.bbox, page) }, 'vlm', out.warnings);
          warnings.push('the VLM wrote nothing for this region; the pipeline read it instead');
        } catch (e) {
          if (signal.aborted) throw new CancelledError('the reparse');
          warnings.push(`the VLM failed (${messageOf(e)}); the pipeline read this region instead`);
        }
      }
      return answer(
        await pool.reparse(docId, params.page, params.bbox, params.cls, aopts, signal),
        'pipeline',
        warnings,
      );
    } catch (e) {
      throw toResponseError(e);
    } finally {
      held.release();
    }
  },
);

// folio/export: the extension's DoclingDocument / chunks output, rendered in a worker thread.
connection.onRequest(ExportRequest.type, async (params, token) => {
  refuseBadParams(checkExportParams(params));
  try {
    // The line says the export left this thread (the tests wait for it rather than for a time).
    const started = () =>
      log('info', `export: ${params.format} of ${params.pages.length} page(s) running in a worker thread`);
    return await exportInWorker(exportJob(params, toPath(params.uri)), abortSignal(token), undefined, started);
  } catch (e) {
    throw toResponseError(e);
  }
});

// folio/pullModel: the extension's "Download models" (streamed I/O on this thread's event loop).
connection.onRequest(PullModelRequest.type, async (params, token) => {
  refuseBadParams(checkPullModelParams(params));
  const workDone = params.workDoneToken;
  if (workDone !== undefined)
    void connection.sendProgress(WorkDoneProgress.type, workDone, {
      kind: 'begin',
      title: `Downloading ${params.repo}`,
      cancellable: true,
    });
  const signal = abortSignal(token);
  try {
    return await pullModelRequest(params, signal, (message, percentage) => {
      if (workDone !== undefined)
        void connection.sendProgress(WorkDoneProgress.type, workDone, { kind: 'report', message, percentage });
    });
  } catch (e) {
    if (signal.aborted) throw toResponseError(new CancelledError(`the download of ${params.repo}`));
    throw toResponseError(e);
  } finally {
    if (workDone !== undefined) void connection.sendProgress(WorkDoneProgress.type, workDone, { kind: 'end' });
  }
});

connection.onShutdown(async () => {
  reparseDocs.dispose();
  await Promise.all([pool.dispose(), disposeVlmEngines()]);
});

connection.onExit(() => {
  void pool.dispose();
});

process.on('uncaughtException', (e) => log('error', `backend: ${e.stack ?? e.message}`));
process.on('unhandledRejection', (e) =>
  log('error', `backend: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
);

connection.listen();
