/**
 * `folio serve --redis`: tasks live in Redis, so a service stopped with a task in flight and
 * started again (a new process would do the same: nothing is kept in memory) still answers for
 * it, and the task completes on the `folio worker` meanwhile.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { repoRoot, corpusPath } from '../helpers/corpus';
import { startRedis, type RedisHandle } from '../helpers/redisServer';
import { buildServer } from '../../server/serve/app';
import { QueueRunner } from '../../server/serve/tasks';
import { WorkDir } from '../../server/serve/workdir';

const LONG = corpusPath('opendataloader-samples/1901.03003.pdf'); // 15 pages
let redis: RedisHandle;
let worker: ChildProcess;
let dir: string;

before(async () => {
  redis = await startRedis();
  dir = mkdtempSync(join(tmpdir(), 'folio-serveq-'));
  worker = spawn(
    process.execPath,
    [join(repoRoot(), 'dist', 'cli.js'), 'worker', '--redis', redis.url, '--threads', '2'],
    { stdio: 'ignore' },
  );
});
after(async () => {
  if (worker.exitCode === null) process.kill(worker.pid!, 'SIGKILL');
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function service(): Promise<{ app: FastifyInstance; runner: QueueRunner; url: string }> {
  const work = new WorkDir(join(dir, 'work'));
  const runner = new QueueRunner(redis.url, work, { maxPages: 100, timeoutMs: 0, retentionMs: 3600_000 }, 2);
  const app = await buildServer({
    runner,
    work,
    baseOptions: { engine: 'pipeline' },
    maxUploadBytes: 10 * 1024 * 1024,
    version: 'test',
  });
  return { app, runner, url: await app.listen({ host: '127.0.0.1', port: 0 }) };
}

test('a task submitted before a service restart completes and is answered after it', { timeout: 400_000 }, async () => {
  const a = await service();
  assert.equal((await fetch(`${a.url}/ready`)).status, 200);
  const f = new FormData();
  f.append('ocr', 'never');
  f.append('page_range', '1-6'); // 3 range jobs of 2 pages: in flight at the restart, short enough for CI
  f.append('files', new Blob([new Uint8Array(readFileSync(LONG))]), 'long.pdf');
  const sub = (await (await fetch(`${a.url}/v1/convert/file/async`, { method: 'POST', body: f })).json()) as {
    task_id: string;
  };
  for (let i = 0; i < 3000; i++) {
    const s = (await (await fetch(`${a.url}/v1/status/poll/${sub.task_id}`)).json()) as {
      task_meta: { pages_done: number };
    };
    if (s.task_meta.pages_done >= 1) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await a.app.close();
  await a.runner.close();

  const b = await service();
  try {
    let s: any;
    for (let i = 0; i < 3000; i++) {
      s = await (await fetch(`${b.url}/v1/status/poll/${sub.task_id}?wait=5`)).json();
      if (s.task_status !== 'pending' && s.task_status !== 'started') break;
    }
    assert.equal(s.task_status, 'success', JSON.stringify(s));
    assert.deepEqual(s.task_meta, {
      num_docs: 1,
      num_processed: 1,
      num_succeeded: 1,
      num_failed: 0,
      pages_done: 6,
      pages_total: 6,
    });
    const r = (await (await fetch(`${b.url}/v1/result/${sub.task_id}`)).json()) as any;
    // The restarted service never saw the request's options: it answers Markdown, the DoclingDocument and DocTags.
    assert.deepEqual(Object.keys(r.document.json_content.pages), ['1', '2', '3', '4', '5', '6']);
    assert.ok(r.document.md_content.length > 500);
  } finally {
    await b.app.close();
    await b.runner.close();
  }
});
