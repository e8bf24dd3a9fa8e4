/**
 * Security round 3 (issue 34), the queue's findings, against a real password-protected Redis, the
 * real CLI (`folio convert --queue`, `folio worker`) and a hostile Redis writer (ioredis and a
 * BullMQ worker of the test's own, as an attacker with the password would run them):
 * - F1: the writer plays the worker and rewrites the task's pictures layout; the submitter wrote
 *   its asset over any `*.png` in the output folder or one level below.
 * - F2: `--queue` did not send `--max-pages` and the worker applied no limit of its own.
 * - F8: options named after Object.prototype's members passed or crashed the allow-list; the
 *   task was retried three times and never failed.
 * - F13: `folio worker` ignored SIGTERM once Redis was gone (or stopped answering).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import IORedis from 'ioredis';
import { Queue, QueueEvents, Worker, type Job } from 'bullmq';
import { repoRoot } from '../helpers/corpus';
import { startRedis, type RedisHandle } from '../helpers/redisServer';
import { pageTreePdf } from '../helpers/pageTreePdf';
import { runCli } from '../security/issue21Cli';
import { QUEUE_NAME, docKeys, type FolioJobData } from '../../server/queue/keys';
import { QueueClient, JOB_DEFAULTS } from '../../server/queue/client';
import { checkOptions } from '../../server/convert/checkParams';

const cli = () => join(repoRoot(), 'dist', 'cli.js');

let redisServer: RedisHandle;
let redis: IORedis;
let queue: Queue;
let events: QueueEvents;
let dir: string;
/** BullMQ does not close connections it is given: kept to close them. */
const conns: IORedis[] = [];
const workers: ChildProcess[] = [];

before(async () => {
  redisServer = await startRedis(undefined, { password: 'round3-test' });
  redis = new IORedis(redisServer.url, { maxRetriesPerRequest: null });
  conns.push(redis.duplicate(), redis.duplicate());
  queue = new Queue(QUEUE_NAME, { connection: conns[0] });
  events = new QueueEvents(QUEUE_NAME, { connection: conns[1] });
  await events.waitUntilReady();
  dir = mkdtempSync(join(tmpdir(), 'folio-queue-round3-'));
  writeFileSync(join(dir, 'hundred.pdf'), pageTreePdf(2));
  writeFileSync(join(dir, 'hundred-thousand.pdf'), pageTreePdf(5));
});

after(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) process.kill(w.pid!, 'SIGKILL');
  await events?.close();
  await queue?.close();
  for (const c of conns) c.disconnect();
  redis?.disconnect();
  await redisServer?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface WorkerHandle {
  child: ChildProcess;
  log: () => string;
  /** Resolves when the log contains `re` (the worker's own words, no sleeps). */
  said(re: RegExp, ms?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startWorker(url: string, extra: string[] = []): WorkerHandle {
  const child = spawn(process.execPath, [cli(), 'worker', '--redis', url, '--threads', '1', ...extra], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, FOLIO_CACHE_DIR: join(dir, 'cache') },
  });
  workers.push(child);
  let log = '';
  const waiters: { re: RegExp; resolve: () => void }[] = [];
  child.stderr!.on('data', (d: Buffer) => {
    log += d.toString();
    for (const w of waiters.splice(0))
      if (w.re.test(log)) w.resolve();
      else waiters.push(w);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  return {
    child,
    log: () => log,
    exited,
    said: (re, ms = 60_000) =>
      new Promise<void>((resolve, reject) => {
        if (re.test(log)) return resolve();
        const t = setTimeout(() => reject(new Error(`the worker never said ${re}; its log:\n${log}`)), ms);
        waiters.push({
          re,
          resolve: () => {
            clearTimeout(t);
            resolve();
          },
        });
        void exited.then(() => {
          clearTimeout(t);
          if (!re.test(log)) reject(new Error(`the worker exited before saying ${re}; its log:\n${log}`));
        });
      }),
  };
}

/** Waits for a job to end either way (the worker's own events, no sleeps); returns its failure, if any. */
async function finished(job: Job): Promise<Error | undefined> {
  return job.waitUntilFinished(events, 180_000).then(
    () => undefined,
    (e: Error) => e,
  );
}

/** Writes a task as a hostile writer would: record fields as given, the PDF, and its plan job (retried as a submitter's is). */
async function hostileTask(fields: Record<string, string>, pdf: Buffer): Promise<{ id: string; plan: Job }> {
  const id = randomUUID();
  const k = docKeys(id);
  await redis.hset(k.record, {
    name: 'hostile.pdf',
    rangePages: '8',
    deadline: '0',
    created: String(Date.now()),
    pictures: 'none',
    ...fields,
  });
  await redis.set(k.pdf, pdf);
  const plan = await queue.add(
    'plan',
    { kind: 'plan', docId: id },
    { ...JOB_DEFAULTS, backoff: { type: 'fixed', delay: 100 }, jobId: `${id}-plan` },
  );
  return { id, plan };
}

const PNG = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), Buffer.from('ATTACKER BYTES')]);

test(
  "F1: a Redis writer that rewrites the pictures layout cannot make convert --queue replace the user's PNGs",
  { timeout: 240_000 },
  async () => {
    const docs = join(dir, 'f1', 'docs');
    mkdirSync(join(docs, 'figures'), { recursive: true });
    copyFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), join(docs, 'paper.pdf'));
    writeFileSync(join(docs, 'figures', 'diagram.png'), 'USER ORIGINAL DIAGRAM');
    writeFileSync(join(docs, 'logo.png'), 'USER LOGO');
    const page = {
      page: 1,
      width: 612,
      height: 792,
      doctags: '<text>hello</text>',
      markdown: 'hello\n',
      regions: [],
      engine: 'pipeline',
      ocr: false,
      warnings: [],
    };
    for (const mode of ['folder', 'flat'] as const) {
      // The attacker plays the worker: takes the plan job and answers it with a layout of its own.
      const conn = new IORedis(redisServer.url, { maxRetriesPerRequest: null });
      let seen = 0;
      const attacker = new Worker<FolioJobData>(
        QUEUE_NAME,
        async (job) => {
          const k = docKeys(job.data.docId);
          if (mode === 'folder') {
            await redis.hset(k.record, 'assetsFolder', 'figures');
            await redis.hset(k.assets, 'figures/diagram.png', PNG);
          } else {
            await redis.hdel(k.record, 'assetsFolder');
            await redis.hset(k.record, 'pictures', 'flat');
            await redis.hset(k.assets, 'logo.png', PNG);
          }
          await redis.hset(k.pages, '1', JSON.stringify(page));
          await redis.hset(k.record, { total: '1', pageCount: '1' });
          seen++;
        },
        { connection: conn },
      );
      try {
        const r = await runCli(['convert', '--queue', redisServer.url, 'docs/paper.pdf', '--force'], {
          cwd: join(dir, 'f1'),
          env: { FOLIO_CACHE_DIR: join(dir, 'cache') },
          timeoutMs: 120_000,
        });
        assert.equal(seen, 1, `the attacker answered the task (${mode}); CLI: ${r.stderr}`);
        assert.equal(
          readFileSync(join(docs, 'figures', 'diagram.png'), 'utf8'),
          'USER ORIGINAL DIAGRAM',
          `${mode}: ${r.stderr}`,
        );
        assert.equal(readFileSync(join(docs, 'logo.png'), 'utf8'), 'USER LOGO', `${mode}: ${r.stderr}`);
        assert.equal(r.status, 1, `${mode}: the changed task is an error: ${r.stdout}${r.stderr}`);
        assert.match(r.stderr, /pictures layout in Redis .* is not the one this submitter chose/);
      } finally {
        await attacker.close();
        conn.disconnect();
      }
    }
  },
);

test(
  'F2: convert --queue sends --max-pages; the worker applies its own default whatever the record says',
  { timeout: 300_000 },
  async () => {
    const w = startWorker(redisServer.url);
    try {
      await w.said(/ready: waiting for jobs/);
      const r = await runCli(['convert', '--queue', redisServer.url, '--max-pages', '5', 'hundred.pdf', '-q'], {
        cwd: dir,
        env: { FOLIO_CACHE_DIR: join(dir, 'cache') },
        timeoutMs: 120_000,
      });
      assert.equal(r.status, 1, `refused, as in-process: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /hundred\.pdf has 100 pages, more than the page limit of 5/);
      // A record with no limit at all (a hostile writer, or an older submitter): the worker's default, 10,000.
      const { id, plan } = await hostileTask({}, readFileSync(join(dir, 'hundred-thousand.pdf')));
      const err = await finished(plan);
      assert.ok(err, 'the plan job failed');
      assert.equal((await queue.getJob(plan.id!))?.attemptsMade, 1, 'refused without retries');
      const rec = await redis.hgetall(docKeys(id).record);
      assert.match(rec.error ?? '', /has 100000 pages, more than the page limit of 10000/);
      assert.equal(rec.total, undefined, 'no page was listed');
      assert.equal(await queue.getJob(`${id}-r0`), undefined, 'no range job was queued');
    } finally {
      const stopped = w.exited;
      process.kill(w.child.pid!, 'SIGTERM');
      await stopped;
    }
  },
);

test('F2: folio worker --max-pages holds even when the record asks for more', { timeout: 240_000 }, async () => {
  const w = startWorker(redisServer.url, ['--max-pages', '50']);
  try {
    await w.said(/ready: waiting for jobs/);
    const { id, plan } = await hostileTask({ maxPages: '1000000' }, readFileSync(join(dir, 'hundred.pdf')));
    assert.ok(await finished(plan), 'the plan job failed');
    const rec = await redis.hgetall(docKeys(id).record);
    assert.match(rec.error ?? '', /has 100 pages, more than the page limit of 50/);
    assert.equal(rec.errorKind, 'limit');
    assert.equal(await queue.getJob(`${id}-r0`), undefined, 'no range job was queued');
  } finally {
    const stopped = w.exited;
    process.kill(w.child.pid!, 'SIGTERM');
    await stopped;
  }
});

test(
  'F8: options named after Object.prototype members are refused once and fail their task',
  { timeout: 240_000 },
  async () => {
    for (const key of ['isPrototypeOf', 'valueOf', '__proto__', 'hasOwnProperty', 'constructor']) {
      assert.equal(checkOptions(JSON.parse(`{"${key}":1}`)), `options.${key} is not a Folio option`);
    }
    const w = startWorker(redisServer.url);
    const client = new QueueClient(redisServer.url, { log: () => undefined });
    try {
      await w.said(/ready: waiting for jobs/);
      for (const options of ['{"isPrototypeOf":1}', '{"__proto__":{}}', '{"valueOf":1}']) {
        const { id, plan } = await hostileTask({ options }, readFileSync(join(dir, 'hundred.pdf')));
        assert.ok(await finished(plan), `${options}: the plan job failed`);
        const job = await queue.getJob(plan.id!);
        assert.equal(job?.attemptsMade, 1, `${options}: refused without retries`);
        const key = Object.keys(JSON.parse(options))[0];
        assert.match(
          (await redis.hget(docKeys(id).record, 'error')) ?? '',
          new RegExp(`options\\.${key} is not a Folio option`),
        );
        assert.equal(await redis.hlen(docKeys(id).pages), 0, `${options}: no page converted`);
        // What `serve --redis` answers a status poll with: a failed task, not an exception (500).
        const st = await client.status(id);
        assert.equal(st?.state, 'failure', `${options}: ${JSON.stringify(st)}`);
        assert.match(st?.error ?? '', /is not a Folio option/);
      }
    } finally {
      await client.close();
      const stopped = w.exited;
      process.kill(w.child.pid!, 'SIGTERM');
      await stopped;
    }
  },
);

for (const how of ['gone', 'silent'] as const) {
  test(`F13: folio worker stops within seconds on SIGTERM when Redis is ${how}`, { timeout: 120_000 }, async () => {
    const own = await startRedis();
    const w = startWorker(own.url);
    try {
      await w.said(/ready: waiting for jobs/);
      if (how === 'gone') {
        await own.stop(); // by its PID, SIGKILL: the worker's connections break
        await w.said(/cannot reach Redis/);
      } else {
        process.kill(own.pid, 'SIGSTOP'); // connections stay open; nothing is answered
      }
      const sent = Date.now();
      process.kill(w.child.pid!, 'SIGTERM');
      const bound = new Promise<'still running'>((r) => setTimeout(() => r('still running'), 15_000).unref());
      const end = await Promise.race([w.exited, bound]);
      assert.notEqual(end, 'still running', `still running 15 s after SIGTERM; log:\n${w.log()}`);
      assert.deepEqual(end, { code: 0, signal: null }, w.log());
      assert.ok(Date.now() - sent < 15_000);
    } finally {
      if (how === 'silent') {
        process.kill(own.pid, 'SIGCONT');
        await own.stop();
      }
    }
  });
}
