/**
 * `npm run bench -- --parts queue`: the queue's cost and gain on this machine, all in one run.
 * Documents per minute for the same seeded sample converted (a) in-process by `folio convert`,
 * (b) through Redis + BullMQ with one `folio worker`, (c) with two; ratios against (a). Then time
 * to the first page through `folio serve` (in-process and with --redis) for a 15-page PDF.
 * Throws (non-zero exit) when a conversion fails or nothing was measured.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import type { CorpusEntry } from '../eval/corpus';
import { fmt, textTable } from '../eval/report/textTable';
import { mulberry32 } from '../server/util/random';
import { startRedis, freePort } from '../test/helpers/redisServer';

export interface QueueFigures {
  docs: number;
  pages: number;
  cores: number;
  inProcessDocsPerMin: number;
  oneWorkerDocsPerMin: number;
  twoWorkersDocsPerMin: number;
  firstPageMsInProcess: number;
  firstPageMsQueue: number;
}

function run(cli: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const c = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    c.stderr.on('data', (d) => (err += d));
    c.on('exit', (code) =>
      code === 0
        ? resolve(Date.now() - started)
        : reject(new Error(`folio ${args[0]} exited ${code}: ${err.slice(-500)}`)),
    );
  });
}

function worker(cli: string, url: string, threads: number): ChildProcess {
  return spawn(process.execPath, [cli, 'worker', '--redis', url, '--threads', String(threads)], { stdio: 'ignore' });
}

async function firstPage(cli: string, pdf: string, work: string, extra: string[]): Promise<number> {
  const port = await freePort();
  const svc = spawn(process.execPath, [cli, 'serve', '--port', String(port), '--work-dir', work, ...extra], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 600; i++) {
      if (
        await fetch(`${base}/ready`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const submit = async (fields: Record<string, string>) => {
      const f = new FormData();
      for (const [k, v] of Object.entries(fields)) f.append(k, v);
      f.append('files', new Blob([new Uint8Array(readFileSync(pdf))]), 'doc.pdf');
      return fetch(`${base}/v1/convert/file${fields.page_range ? '' : '/async'}`, { method: 'POST', body: f });
    };
    // Warm up (page-worker threads and pdf.js loaded) so both services are measured warm.
    const warm = await submit({ page_range: '1' });
    if (!warm.ok) throw new Error(`service warm-up failed: HTTP ${warm.status} ${await warm.text()}`);
    const t0 = Date.now();
    const sub = (await (await submit({})).json()) as { task_id: string };
    for (;;) {
      const s = (await (await fetch(`${base}/v1/status/poll/${sub.task_id}`)).json()) as {
        task_status: string;
        task_meta: { pages_done: number };
        error?: string;
      };
      if (s.task_meta.pages_done >= 1) return Date.now() - t0;
      if (s.task_status === 'failure') throw new Error(`service: ${s.error}`);
      if (Date.now() - t0 > 300_000) throw new Error('service: no page after 300 s');
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    process.kill(svc.pid!, 'SIGKILL');
  }
}

export async function benchQueue(repo: string, born: CorpusEntry[], work: string, docs: number): Promise<QueueFigures> {
  const cli = join(repo, 'dist', 'cli.js');
  const pool = born.filter((e) => e.pages !== undefined && e.pages >= 2 && e.pages <= 20);
  const rnd = mulberry32(7);
  const picked = [...pool]
    .sort((a, b) => a.rel.localeCompare(b.rel))
    .map((e) => ({ e, k: rnd() }))
    .sort((a, b) => a.k - b.k)
    .slice(0, docs)
    .map((x) => x.e);
  if (picked.length === 0) throw new Error('bench queue: no corpus documents to convert');
  const files = picked.map((e) => e.pdf);
  const pages = picked.reduce((s, e) => s + (e.pages ?? 0), 0);
  console.error(`bench: queue: ${files.length} documents, ${pages} pages`);
  const perMin = (ms: number) => files.length / (ms / 60000);

  const inProc = await run(cli, ['convert', '--jobs', '2', '-q', '-o', join(work, 'q-in') + '/', ...files]);
  const redis = await startRedis();
  let one = 0;
  let two = 0;
  let tfpIn = 0;
  let tfpQ = 0;
  let firstDocPages = 0;
  const ws: ChildProcess[] = [];
  try {
    ws.push(worker(cli, redis.url, 2));
    one = await run(cli, ['convert', '--queue', redis.url, '-q', '-o', join(work, 'q-1') + '/', ...files]);
    ws.push(worker(cli, redis.url, 2));
    two = await run(cli, ['convert', '--queue', redis.url, '-q', '-o', join(work, 'q-2') + '/', ...files]);
    process.kill(ws.pop()!.pid!, 'SIGKILL');
    const docEntry = born.find((e) => e.pages !== undefined && e.pages >= 10);
    const doc = docEntry?.pdf;
    firstDocPages = docEntry?.pages ?? 0;
    if (!doc) throw new Error('bench queue: no born-digital document of 10+ pages for the first-page figure');
    tfpIn = await firstPage(cli, doc, join(work, 'svc-in'), []);
    tfpQ = await firstPage(cli, doc, join(work, 'svc-q'), ['--redis', redis.url, '--range-pages', '4']);
  } finally {
    for (const w of ws) if (w.exitCode === null) process.kill(w.pid!, 'SIGKILL');
    await redis.stop();
  }
  const f: QueueFigures = {
    docs: files.length,
    pages,
    cores: cpus().length,
    inProcessDocsPerMin: perMin(inProc),
    oneWorkerDocsPerMin: perMin(one),
    twoWorkersDocsPerMin: perMin(two),
    firstPageMsInProcess: tfpIn,
    firstPageMsQueue: tfpQ,
  };
  const rows = [
    ['in-process (folio convert --jobs 2)', fmt(inProc / 1000, 1), fmt(f.inProcessDocsPerMin, 1), '1'],
    [
      'queue, 1 worker (--threads 2)',
      fmt(one / 1000, 1),
      fmt(f.oneWorkerDocsPerMin, 1),
      fmt(f.oneWorkerDocsPerMin / f.inProcessDocsPerMin, 3),
    ],
    [
      'queue, 2 workers (--threads 2 each)',
      fmt(two / 1000, 1),
      fmt(f.twoWorkersDocsPerMin, 1),
      fmt(f.twoWorkersDocsPerMin / f.inProcessDocsPerMin, 3),
    ],
  ];
  console.log(
    `\n== queue: ${files.length} documents, ${pages} pages, ${f.cores} cores, same run ==\n${textTable(['mode', 'wall s', 'docs/min', '÷ in-process'], rows)}`,
  );
  console.log(
    `time to first page of a ${firstDocPages}-page PDF through folio serve (warm): in-process ${fmt(tfpIn / 1000, 2)} s; with --redis and a worker ${fmt(tfpQ / 1000, 2)} s`,
  );
  return f;
}
