/**
 * Page workers start with a stack big enough for onnxruntime's session code (eval/FINDINGS.md,
 * 2026-11-28: on Node's default 4 MB worker stack, the 206-document snapshot batch segfaulted
 * inside libonnxruntime after 14 documents, in every format and with `--jobs 1` or 2; gdb showed
 * one recursive onnxruntime frame repeated on the page worker's thread). Reproducing the overflow
 * needs that whole batch (minutes), so this checks the limit both ways a page worker starts — the
 * pool's own spawn and the CLI launcher's prestarted worker — on the real Worker objects.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { pageWorkerLimits, WORKER_STACK_MB, DEFAULT_WORKER_HEAP_MB } from '../../server/worker/prestart';

test('page workers get a 16 MB stack and the heap limit they ask for', async () => {
  assert.ok(WORKER_STACK_MB >= 16, `stack ${WORKER_STACK_MB} MB: onnxruntime overflowed 4 MB`);
  const limits = pageWorkerLimits(DEFAULT_WORKER_HEAP_MB);
  assert.equal(limits.maxOldGenerationSizeMb, DEFAULT_WORKER_HEAP_MB);
  // The limits as Node applied them to a thread (what the worker really runs with).
  const w = new Worker('require("node:worker_threads").parentPort.postMessage(1)', {
    eval: true,
    resourceLimits: limits,
  });
  await new Promise((resolve) => w.once('message', resolve));
  assert.equal(w.resourceLimits?.stackSizeMb, WORKER_STACK_MB);
  await w.terminate();
});
