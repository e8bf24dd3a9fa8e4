/**
 * The export worker thread (bundled as dist/exportWorker.js), one per `folio/export` request:
 * building a DoclingDocument or chunks for a long document (parsing every page's DocTags,
 * tokenising, `JSON.stringify` of megabytes, reading pictures to embed) is seconds of blocking
 * work that must not hold the backend's JSON-RPC thread, where `$/cancelRequest` and other
 * conversions are served. The exporter is plain JavaScript (no onnxruntime), so a cancel simply
 * terminates this thread (server/export/inWorker.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { renderExport } from './index';
import { messageOf } from '../errors';
import type { ExportJob, ExportReply } from './inWorker';

if (!parentPort) throw new Error('exportWorker.js must run as a worker thread');

const job = workerData as ExportJob;
let reply: ExportReply;
try {
  reply = { ok: renderExport(job) };
} catch (e) {
  reply = { error: messageOf(e) };
}
parentPort.postMessage(reply);
