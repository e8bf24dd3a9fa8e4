/**
 * The preprocessing thread (bundled as dist/preprocessWorker.js), started by the VLM worker's
 * look-ahead (preprocessAhead.ts): reads a page image file and computes its tiles while the VLM
 * worker decodes the page before it. One job at a time, in arrival order; the tiles' buffer is
 * transferred back, not copied.
 */
import { parentPort } from 'node:worker_threads';
import { preprocessHere } from './preprocess';
import type { PreprocessJob, PreprocessReply } from './preprocessAhead';

if (!parentPort) throw new Error('preprocessWorker.js must run as a worker thread');
const port = parentPort;
let queue: Promise<void> = Promise.resolve();

port.on('message', (job: PreprocessJob) => {
  queue = queue.then(async () => {
    const t = performance.now();
    let reply: PreprocessReply;
    try {
      const result = await preprocessHere({ path: job.path }, job.pre);
      reply = { id: job.id, ok: true, result, ms: performance.now() - t };
      port.postMessage(reply, [result.pixelValues.buffer as ArrayBuffer]);
      return;
    } catch (e) {
      reply = { id: job.id, ok: false, message: (e as Error).message };
    }
    port.postMessage(reply);
  });
});
