/**
 * The structured-reading worker thread (bundled as dist/structuredWorker.js), one per Office,
 * HTML, Markdown or CSV document: unzipping, parsing the XML and building the items of a large
 * workbook is seconds of blocking work (a sheet of a million cells: tens of seconds) that must not
 * hold the backend's JSON-RPC thread, `folio mcp`'s stdio loop or `folio serve`'s event loop, where
 * cancels and other requests are served. The readers are plain JavaScript (no native code), so a
 * cancel or the document's time budget simply terminates this thread (structuredInput.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readWithPictures, type StructuredReadJob, type StructuredReadReply } from './structuredInput';
import { isFolioError, messageOf } from '../errors';

if (!parentPort) throw new Error('structuredWorker.js must run as a worker thread');

const job = workerData as StructuredReadJob;
let reply: StructuredReadReply;
try {
  reply = { ok: readWithPictures(job.path, job.format, job.options, job.maxCells) };
} catch (e) {
  reply = { error: messageOf(e), code: isFolioError(e) ? e.code : undefined };
}
// The pictures' bytes move to the caller's thread rather than being copied.
// (A buffer is listed once: several pictures may be views of one.)
const transfer = 'ok' in reply ? [...new Set(reply.ok.pictures.map((p) => p.data.buffer as ArrayBuffer))] : [];
parentPort.postMessage(reply, transfer);
