/**
 * Page worker: a worker thread that owns pdf.js documents and runs the pipeline engine on them.
 * Bundled as dist/pageWorker-main.js and loaded by dist/pageWorker.js (launch.ts), the script
 * `PageWorkerPool` starts. Each request names a document id; a document is opened once per
 * worker and kept until `close`.
 */
import { parentPort } from 'node:worker_threads';
import { analyzePage, openPdf, reparseRegion } from '../pipeline/index';
import { serializeError } from '../errors';
import type { WorkerInit, WorkerRequest, WorkerResponse } from './messages';
import { awaitTermination, createCancelBuffer, enterNative, leaveNative, sharedAbortSignal } from './cancelFlag';
import { setRunHooks } from '../onnx/runtime';
import { beginBudget, installPdfBudget } from './pdfBudget';
import { pdfjs } from '../pdf/pdfjs';
import { startupMark } from '../util/startupTrace';

type PdfHandle = Awaited<ReturnType<typeof openPdf>>;

startupMark('worker:start');

const port = parentPort;
if (!port) throw new Error('pageWorker must run in a worker thread');

const docs = new Map<string, Promise<PdfHandle>>();
let cancelFlag = createCancelBuffer();

function doc(docId: string): Promise<PdfHandle> {
  const d = docs.get(docId);
  if (!d) throw new Error(`document ${docId} is not open in this worker`);
  return d;
}

async function handle(req: WorkerRequest): Promise<WorkerResponse> {
  // One request runs at a time per worker (the pool's slots), 'close' aside, which runs no pdf.js parse.
  if (req.kind !== 'close') beginBudget(req.budget?.memoryBytes ?? 0);
  switch (req.kind) {
    case 'open': {
      let opened = docs.get(req.docId);
      if (!opened) {
        const fresh = openPdf(req.path, { password: req.password });
        // A failed open is forgotten, so a retry (e.g. with a password) opens again.
        fresh.catch(() => docs.delete(req.docId));
        docs.set(req.docId, fresh);
        opened = fresh;
      }
      const numPages = (await opened).numPages;
      startupMark('worker:opened');
      return { kind: 'opened', id: req.id, numPages };
    }
    case 'analyze': {
      const analysis = await analyzePage(
        await doc(req.docId),
        req.page,
        req.options,
        sharedAbortSignal(cancelFlag, req.id),
      );
      startupMark('worker:analyzed');
      return { kind: 'analyzed', id: req.id, analysis };
    }
    case 'reparse':
      return {
        kind: 'reparsed',
        id: req.id,
        item: await reparseRegion(await doc(req.docId), req.page, req.bbox, req.cls, req.options),
      };
    case 'close': {
      const d = docs.get(req.docId);
      docs.delete(req.docId);
      if (d) await (await d.catch(() => undefined))?.close();
      return { kind: 'closed', id: req.id };
    }
  }
}

port.on('message', (req: WorkerRequest | WorkerInit) => {
  if (req.kind === 'init') {
    cancelFlag = req.cancel;
    installPdfBudget(cancelFlag);
    const flag = cancelFlag;
    // OCR's onnxruntime runs are counted, so the pool never terminates this thread inside one.
    setRunHooks({
      enter: () => {
        if (!enterNative(flag)) awaitTermination(flag);
      },
      leave: () => leaveNative(flag),
    });
    // Every page worker converts PDFs: pdf.js starts loading now (~70 ms), while the pool is still
    // getting its first request ready, rather than at the first 'open' (issue 22, start-up). After
    // installPdfBudget, so pdf.js finds the counting constructors. A failed load surfaces at 'open'.
    pdfjs().catch(() => undefined);
    return;
  }
  handle(req).then(
    (res) => port.postMessage(res),
    (err) => port.postMessage({ kind: 'error', id: req.id, error: serializeError(err) } satisfies WorkerResponse),
  );
});
