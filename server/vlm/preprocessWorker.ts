/**
 * The preprocessing thread (bundled as dist/preprocessWorker.js), started by the VLM worker's
 * look-ahead (preprocessAhead.ts): reads a page image file and computes its tiles while the VLM
 * worker decodes the page before it. One job at a time, in arrival order; the tiles' buffer is
 * transferred back, not copied. Buffers the VLM worker gives back (`recycle`, transferred) go into
 * this thread's pool (tilePool.ts), and the next page's tiles are written into one of them.
 */
import { parentPort } from 'node:worker_threads';
import { preprocessHere } from './preprocess';
import type { PreprocessReply, ToPreprocessThread } from './preprocessAhead';
import { threadTilePool } from './tilePool';

if (!parentPort) throw new Error('preprocessWorker.js must run as a worker thread');
const port = parentPort;
let queue: Promise<void> = Promise.resolve();

port.on('message', (job: ToPreprocessThread) => {
  // At once, not queued: a job already decoding its image can still take it.
  if (job.type === 'recycle') {
    threadTilePool.release(job.buffer);
    return;
  }
  queue = queue.then(async () => {
    const t = performance.now();
    let reply: PreprocessReply;
    try {
      const before = threadTilePool.stats().reused;
      const result = await preprocessHere({ path: job.path }, job.pre);
      const recycled = threadTilePool.stats().reused > before;
      reply = { id: job.id, ok: true, result, ms: performance.now() - t, recycled };
      port.postMessage(reply, [result.pixelValues.buffer as ArrayBuffer]);
      return;
    } catch (e) {
      reply = { id: job.id, ok: false, message: (e as Error).message };
    }
    port.postMessage(reply);
  });
});
