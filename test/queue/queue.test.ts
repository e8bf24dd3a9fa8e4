/**
 * The queue end to end on a real Redis: three `folio worker` processes, a seeded sample of corpus
 * PDFs submitted with `folio convert --queue`, one worker SIGKILLed while it holds a range of the
 * multi-page document. Every document completes, every page is stored exactly once (the redone
 * range delivered some pages twice), and the Markdown is byte-identical to `folio convert`
 * in-process. FOLIO_QUEUE_DOCS=200 runs the full 200-document set by hand.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import IORedis from 'ioredis';
import { repoRoot, corpusRoot } from '../helpers/corpus';
import { startRedis, freePort, type RedisHandle } from '../helpers/redisServer';
import { mulberry32 } from '../../server/util/random';

const BIG = 'opendataloader-samples/1901.03003.pdf'; // 15 pages: 5 ranges of 3
const cli = () => join(repoRoot(), 'dist', 'cli.js');

/** Seeded sample of small documents (≤ 3 pages) plus the big one. */
function sample(n: number): string[] {
  const rows = readFileSync(join(corpusRoot(), 'MANIFEST.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t'));
  const small = rows
    .filter((r) => Number(r[1]) >= 1 && Number(r[1]) <= 3 && Number(r[2]) < 400_000 && r[0] !== BIG)
    .map((r) => r[0]);
  const rnd = mulberry32(12);
  for (let i = small.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [small[i], small[j]] = [small[j], small[i]];
  }
  return [BIG, ...small.slice(0, n - 1)].map((p) => join(corpusRoot(), p));
}

function runCli(args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [cli(), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d) => (stdout += d));
    c.stderr.on('data', (d) => (stderr += d));
    const t = setTimeout(() => process.kill(c.pid!, 'SIGKILL'), timeoutMs);
    c.on('exit', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

let redis: RedisHandle;
let dir: string;
const workers: { child: ChildProcess; log: string }[] = [];

before(async () => {
  redis = await startRedis();
  dir = mkdtempSync(join(tmpdir(), 'folio-queue-'));
});
after(async () => {
  for (const w of workers)
    if (w.child.exitCode === null && w.child.signalCode === null) process.kill(w.child.pid!, 'SIGKILL');
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function startWorker(url: string): { child: ChildProcess; log: string } {
  const child = spawn(process.execPath, [cli(), 'worker', '--redis', url, '--threads', '1', '--lock-ms', '6000'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const w = { child, log: '' };
  child.stderr!.on('data', (d) => (w.log += d));
  workers.push(w);
  return w;
}

const DOCS = Number(process.env.FOLIO_QUEUE_DOCS ?? 7);
// By hand with FOLIO_QUEUE_DOCS=200 the runs take minutes on two cores: scale the limits.
const LIMIT_MS = Math.max(540_000, DOCS * 10_000);

test(
  'three workers, one SIGKILLed mid-document: every page once, Markdown identical to in-process',
  { timeout: 2 * LIMIT_MS + 60_000 },
  async (t) => {
    const files = sample(DOCS);
    const common = ['--ocr', 'never', '-q'];
    const ws = [startWorker(redis.url), startWorker(redis.url), startWorker(redis.url)];

    const queued = runCli(
      ['convert', '--queue', redis.url, '--range-pages', '3', ...common, '-o', join(dir, 'queue') + '/', ...files],
      LIMIT_MS,
    );

    // Find a worker holding a range of the big document that does not start at page 1, let it
    // store at least one page, then kill it.
    const kv = new IORedis(redis.url);
    kv.on('error', () => undefined);
    // A failed assertion must not leave this client reconnecting forever (the process would not exit).
    t.after(() => kv.disconnect());
    let victim: (typeof ws)[number] | undefined;
    let docId = '';
    let range: number[] = [];
    const deadline = Date.now() + LIMIT_MS;
    while (!victim && Date.now() < deadline) {
      for (const w of ws) {
        for (const m of w.log.matchAll(/task ([0-9a-f-]{36}) pages (\d+)-(\d+): started/g)) {
          const from = Number(m[2]);
          const to = Number(m[3]);
          if (from === 1) continue;
          const delivered = await kv.hkeys(`folio:doc:${m[1]}:pages`);
          if (delivered.some((p) => Number(p) >= from && Number(p) <= to)) {
            victim = w;
            docId = m[1];
            range = [from, to];
            break;
          }
        }
        if (victim) break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(victim, `no worker took a later range of the big document: ${ws.map((w) => w.log).join('\n')}`);
    process.kill(victim.child.pid!, 'SIGKILL');

    const q = await queued;
    const ref = await runCli(['convert', '--jobs', '2', ...common, '-o', join(dir, 'ref') + '/', ...files], LIMIT_MS);
    // Documents that cannot convert (a password-protected file in a large sample) fail the same
    // way on both paths; the sample used in CI has none.
    const failed = (out: string) =>
      [...out.matchAll(/^folio: (.+?\.pdf): /gm)].map((m) => m[1].split('/').pop()).sort();
    assert.deepEqual(failed(q.stderr), failed(ref.stderr), `queue: ${q.stderr}\nin-process: ${ref.stderr}`);
    assert.equal(q.code, ref.code, `exit codes: queue ${q.code}, in-process ${ref.code}`);
    if (!process.env.FOLIO_QUEUE_DOCS) assert.equal(q.code, 0, q.stderr);

    // Every document completed with identical Markdown.
    const names = readdirSync(join(dir, 'ref'))
      .filter((n) => n.endsWith('.md'))
      .sort();
    assert.equal(names.length, files.length - failed(ref.stderr).length);
    assert.deepEqual(
      readdirSync(join(dir, 'queue'))
        .filter((n) => n.endsWith('.md'))
        .sort(),
      names,
    );
    for (const n of names)
      assert.equal(
        readFileSync(join(dir, 'queue', n), 'utf8'),
        readFileSync(join(dir, 'ref', n), 'utf8'),
        `${n}: queue and in-process Markdown differ`,
      );

    // Every page stored exactly once, for every document.
    const docs = (await kv.keys('folio:doc:*:pages')).map((k) => k.split(':')[2]);
    assert.equal(docs.length, names.length);
    for (const id of docs) {
      const total = Number(await kv.hget(`folio:doc:${id}`, 'total'));
      const pages = (await kv.hkeys(`folio:doc:${id}:pages`)).map(Number).sort((a, b) => a - b);
      assert.deepEqual(
        pages,
        Array.from({ length: total }, (_, i) => i + 1),
        `document ${id}`,
      );
    }
    // The killed range was redone: some page of it was delivered twice and stored once.
    const deliveries = await kv.hgetall(`folio:doc:${docId}:deliveries`);
    const twice = Object.entries(deliveries).filter(
      ([p, n]) => Number(p) >= range[0] && Number(p) <= range[1] && Number(n) >= 2,
    );
    assert.ok(twice.length > 0, `pages ${range.join('-')} delivered: ${JSON.stringify(deliveries)}`);
    assert.ok(
      ws
        .filter((w) => w !== victim)
        .some((w) => w.log.includes(`task ${docId} pages ${range[0]}-${range[1]}: started`)),
      'another worker took the range over',
    );
    kv.disconnect();
    console.log(
      `queue test: ${files.length} documents, ${names.length} converted on both paths, identical; pages ${range.join('-')} of ${docId} redone after SIGKILL`,
    );
  },
);

test(
  'a worker that cannot reach Redis keeps retrying, says so, and connects once Redis is up',
  { timeout: 120_000 },
  async () => {
    const port = await freePort();
    const w = startWorker(`redis://127.0.0.1:${port}`);
    const until = async (re: RegExp, ms: number) => {
      const end = Date.now() + ms;
      while (!re.test(w.log) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
      assert.match(w.log, re);
    };
    await until(
      /cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+\/? \(ECONNREFUSED\); retrying in [\d.]+ s \(attempt 2\)/,
      60_000,
    );
    assert.equal(w.child.exitCode, null, 'the worker is still running');
    const late = await startRedis(port);
    try {
      await until(/connected to Redis/, 60_000);
    } finally {
      process.kill(w.child.pid!, 'SIGKILL');
      await late.stop();
    }
  },
);
