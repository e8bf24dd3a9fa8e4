/**
 * A chunk answer made off the event loop (security round 4, N2): `chunkItems` runs in a worker
 * thread (dist/serveChunkWorker.js beside this bundle), at most `MAX_CHUNK_THREADS` at once, and
 * within the task's time limit (`--task-timeout`): past it the thread is terminated and the
 * answer is a 504. Before, a one-page PDF at `chunking_max_tokens` 4,000 held every route 89 s.
 * Where the worker's bundle is absent (tests bundled on their own) the chunker runs inline.
 */
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chunkItems, type DocSource } from './doclingResult';
import type { ChunkingRequest } from './doclingOptions';
import type { TaskResult } from './tasks';
import { HttpError } from './httpError';

export interface ChunkJob {
  result: Omit<TaskResult, 'assets'>;
  src: DocSource;
  dir: string;
  chunking: ChunkingRequest;
}
export type ChunkOutput = ReturnType<typeof chunkItems>;
export type ChunkReply = { ok: ChunkOutput } | { error: string };

/** Chunking threads at once; more answers wait their turn. */
export const MAX_CHUNK_THREADS = 2;
let running = 0;
const waiting: (() => void)[] = [];

async function slot(): Promise<() => void> {
  while (running >= MAX_CHUNK_THREADS) await new Promise<void>((r) => waiting.push(r));
  running++;
  return () => {
    running--;
    waiting.shift()?.();
  };
}

export async function chunkInWorker(
  r: TaskResult,
  src: DocSource,
  dir: string,
  chunking: ChunkingRequest,
  timeoutMs: number,
  script = join(__dirname, 'serveChunkWorker.js'),
): Promise<ChunkOutput> {
  if (!existsSync(script)) return chunkItems(r, src, dir, chunking);
  const release = await slot();
  try {
    return await new Promise<ChunkOutput>((resolve, reject) => {
      const { assets: _assets, ...result } = r;
      const worker = new Worker(script, { workerData: { result, src, dir, chunking } satisfies ChunkJob });
      let settled = false;
      const settle = (f: () => void) => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        f();
        void worker.terminate();
      };
      const timer =
        timeoutMs > 0
          ? setTimeout(
              () =>
                settle(() =>
                  reject(
                    new HttpError(
                      504,
                      'timeout',
                      `chunking ${src.name} took longer than the task time limit (${timeoutMs / 1000} s): ask for a smaller max_tokens or fewer pages`,
                    ),
                  ),
                ),
              timeoutMs,
            )
          : undefined;
      worker.on('message', (m: ChunkReply) =>
        settle(() => ('ok' in m ? resolve(m.ok) : reject(new Error(`chunking failed: ${m.error}`)))),
      );
      worker.on('error', (e) => settle(() => reject(new Error(`chunking failed: ${e.message}`))));
      worker.on('exit', (code) =>
        settle(() => reject(new Error(`the chunking thread stopped (exit code ${code}) before answering`))),
      );
    });
  } finally {
    release();
  }
}
