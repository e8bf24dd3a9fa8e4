/**
 * The service's chunking thread (bundled as dist/serveChunkWorker.js), one per chunk answer:
 * tokenising a long document is seconds of work that must not hold the service's event loop,
 * where every other client, /health included, is answered (security round 4, N2). The chunker
 * is plain JavaScript, so a time-out simply terminates this thread (chunkInWorker.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { chunkItems } from './doclingResult';
import { messageOf } from '../errors';
import type { ChunkJob, ChunkReply } from './chunkInWorker';

if (!parentPort) throw new Error('serveChunkWorker.js must run as a worker thread');

const job = workerData as ChunkJob;
let reply: ChunkReply;
try {
  reply = { ok: chunkItems({ ...job.result, assets: new Map() }, job.src, job.dir, job.chunking) };
} catch (e) {
  reply = { error: messageOf(e) };
}
parentPort.postMessage(reply);
