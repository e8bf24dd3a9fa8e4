/**
 * Runs one export in a worker thread (dist/exportWorker.js beside this bundle) and answers with
 * its text; an abort terminates the worker at once (safe: the exporter runs no native code).
 */
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ExportOutput, ExportRequest as ExportJobFields } from './index';
import { CancelledError } from '../errors';

export type ExportJob = ExportJobFields;
export type ExportReply = { ok: ExportOutput } | { error: string };

/** `onStarted`: the worker thread is running the export (the JSON-RPC thread is free again). */
export function exportInWorker(
  job: ExportJob,
  signal: AbortSignal,
  script = join(__dirname, 'exportWorker.js'),
  onStarted?: () => void,
): Promise<ExportOutput> {
  if (signal.aborted) return Promise.reject(new CancelledError('the export'));
  if (!existsSync(script))
    return Promise.reject(
      new Error(`The export worker (exportWorker.js) is missing beside ${__dirname}; rebuild Folio (npm run build).`),
    );
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, { workerData: job });
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      f();
      void worker.terminate();
    };
    const onAbort = () => settle(() => reject(new CancelledError('the export')));
    signal.addEventListener('abort', onAbort);
    if (onStarted) worker.once('online', onStarted);
    worker.on('message', (m: ExportReply) =>
      settle(() => ('ok' in m ? resolve(m.ok) : reject(new Error(`export failed: ${m.error}`)))),
    );
    worker.on('error', (e) => settle(() => reject(new Error(`export failed: ${e.message}`))));
    worker.on('exit', (code) =>
      settle(() => reject(new Error(`the export worker stopped (exit code ${code}) before answering`))),
    );
  });
}

/** The exporter's job for a `folio/export` request (parameters already checked; `pdfPath` from its URI). */
export function exportJob(params: import('../../common/protocol').ExportParams, pdfPath: string): ExportJob {
  return {
    format: params.format,
    pdfPath,
    pages: params.pages,
    images: params.images ?? 'link',
    imagesBaseDir: params.picturesDir ?? dirname(pdfPath),
    keepFurniture: params.keepFurniture ?? false,
    chunk: { maxSize: params.chunkSize ?? 2000, unit: 'chars' },
    chunkSchema: params.chunkSchema ?? 'flat',
  };
}
