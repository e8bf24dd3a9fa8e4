/**
 * No decision depends on an error's words (issue 25). Every failure is run twice: as shipped,
 * and with FOLIO_TEST_REWORD_ERRORS=1 (server/errors.ts), which rewrites every FolioError's
 * message — in this process, in the page workers and in a CLI child process — reversing each
 * word's letters. The messages must all differ; every decision must stay: the error's kind,
 * the CLI's exit codes, the HTTP status of the service, the extension's reaction to the code it
 * gets over JSON-RPC (password prompt or not), MCP's kind, the queue's retry, and a cancel.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { ResponseError } from 'vscode-jsonrpc';
import { repoRoot, corpusPath } from '../helpers/corpus';
import { PageWorkerPool } from '../../server/worker/pool';
import { analyzeOptions, convertDocument } from '../../server/convert/convertDocument';
import { isCancelled, kindOf, messageOf } from '../../server/errors';
import { buildServer } from '../../server/serve/app';
import { InProcessRunner } from '../../server/serve/tasks';
import { WorkDir } from '../../server/serve/workdir';
import { RETRIED } from '../../server/queue/retries';
import { toolError, ERROR_KIND_META } from '../../server/mcp/toolErrors';
import { reactionTo } from '../../src/errorReactions';

const SAMPLE = join(repoRoot(), 'test', 'fixtures', 'sample.pdf'); // 2 pages
const LONG = () => corpusPath('opendataloader-samples/1901.03003.pdf'); // 15 pages
const DAMAGED = () => corpusPath('pdfjs-test-pdfs/poppler-742-0-fuzzed.pdf');
const LOCKED = () => corpusPath('docling/pdf/2206.01062_pg3.password.pdf');

const dir = mkdtempSync(join(tmpdir(), 'folio-wording-'));
/** sample.pdf cut after 300 bytes, as a download broken off. */
const TRUNCATED = join(dir, 'truncated.pdf');
writeFileSync(TRUNCATED, readFileSync(SAMPLE).subarray(0, 300));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Outcome {
  decisions: Record<string, unknown>;
  messages: string[];
}

/** The decisions every surface takes on one thrown error, and its message. */
function decide(e: unknown, out: Outcome, name: string): void {
  const kind = kindOf(e);
  // The extension sees only the JSON-RPC error: its code, and words it must not read.
  const code = (e as { code?: number }).code ?? -32603;
  out.decisions[name] = {
    kind,
    extension: reactionTo(new ResponseError(code, messageOf(e))),
    mcp: toolError(kind, messageOf(e))._meta[ERROR_KIND_META],
    retried: RETRIED[kind],
    cancelled: isCancelled(e),
  };
  out.messages.push(messageOf(e));
}

async function inProcess(out: Outcome): Promise<void> {
  // Workers copy the environment when they start: a pool per mode.
  const pool = new PageWorkerPool({ size: 1, script: join(repoRoot(), 'dist', 'pageWorker.js') });
  const fail = async (name: string, input: Parameters<typeof convertDocument>[1]) => {
    const e = await convertDocument(pool, { ...input, options: { ocr: 'never' } }, { page: () => undefined }).then(
      () => assert.fail(`${name}: converted, a failure was expected`),
      (err: unknown) => err,
    );
    decide(e, out, name);
  };
  try {
    await fail('damaged', { uri: TRUNCATED });
    const fuzzed = await convertDocument(
      pool,
      { uri: DAMAGED(), options: { ocr: 'never' } },
      { page: () => undefined },
    );
    out.decisions['damaged page'] = fuzzed.pageErrors.map((p) => p.kind).join();
    out.messages.push(fuzzed.pageErrors.map((p) => p.message).join());
    await fail('encrypted', { uri: LOCKED() });
    await fail('wrong password', { uri: LOCKED(), password: 'not-it' });
    await fail('over the page limit', { uri: SAMPLE, limits: { maxPages: 1 } });
    await fail('bad page selection', { uri: SAMPLE, pages: '7-9' });
    await fail('missing file', { uri: join(dir, 'nowhere.pdf') });
    const ac = new AbortController();
    await pool.open({ docId: 'c', path: SAMPLE });
    const pending = pool.analyze('c', 1, analyzeOptions({ ocr: 'never' }), ac.signal);
    ac.abort();
    decide(await pending.catch((e: unknown) => e), out, 'cancelled page');
  } finally {
    await pool.dispose();
  }
}

function cli(out: Outcome, env: NodeJS.ProcessEnv): void {
  const run = (name: string, ...args: string[]) => {
    const r = spawnSync(process.execPath, [join(repoRoot(), 'dist', 'cli.js'), 'convert', ...args], {
      encoding: 'utf8',
      cwd: dir,
      env: { ...process.env, ...env, FOLIO_CACHE_DIR: join(dir, 'cache') },
      timeout: 180_000,
    });
    out.decisions[`cli ${name}`] = r.status;
    out.messages.push(
      r.stderr
        .split('\n')
        .filter((l) => l.startsWith('folio: '))
        .join('\n'),
    );
  };
  const o = (n: string) => join(dir, `${n}-${env.FOLIO_TEST_REWORD_ERRORS ?? 'plain'}.md`);
  run(
    'damaged and locked',
    DAMAGED(),
    LOCKED(),
    '-o',
    join(dir, `many-${env.FOLIO_TEST_REWORD_ERRORS ?? 'plain'}`) + '/',
  );
  run('over the page limit', SAMPLE, '--max-pages', '1', '-o', o('limit'));
  run('bad page selection', SAMPLE, '--pages', '7-9', '-o', o('pages'));
}

async function service(out: Outcome): Promise<void> {
  const pool = new PageWorkerPool({ size: 1, script: join(repoRoot(), 'dist', 'pageWorker.js') });
  const work = new WorkDir(join(dir, `work-${process.env.FOLIO_TEST_REWORD_ERRORS ?? 'plain'}`));
  try {
    for (const [name, limits, pdf] of [
      ['page limit', { maxPages: 3, timeoutMs: 0, retentionMs: 60_000 }, LONG()],
      ['time limit', { maxPages: 0, timeoutMs: 300, retentionMs: 60_000 }, LONG()],
      ['damaged', { maxPages: 0, timeoutMs: 0, retentionMs: 60_000 }, TRUNCATED],
      ['locked', { maxPages: 0, timeoutMs: 0, retentionMs: 60_000 }, LOCKED()],
    ] as const) {
      const runner = new InProcessRunner(pool, work, limits, 1);
      const app = await buildServer({
        runner,
        work,
        baseOptions: {},
        maxUploadBytes: 8 * 1024 * 1024,
        version: 'test',
      });
      const url = await app.listen({ host: '127.0.0.1', port: 0 });
      try {
        const form = new FormData();
        form.append('ocr', 'never');
        form.append('files', new Blob([new Uint8Array(readFileSync(pdf))]), 'doc.pdf');
        const res = await fetch(`${url}/v1/convert/file`, { method: 'POST', body: form });
        const body = (await res.json()) as { error?: { message: string } };
        out.decisions[`http ${name}`] = res.status;
        out.messages.push(body.error?.message ?? '');
      } finally {
        await app.close();
        await runner.close();
      }
    }
  } finally {
    await pool.dispose();
  }
}

async function outcome(reword: boolean): Promise<Outcome> {
  const before = process.env.FOLIO_TEST_REWORD_ERRORS;
  if (reword) process.env.FOLIO_TEST_REWORD_ERRORS = '1';
  else delete process.env.FOLIO_TEST_REWORD_ERRORS;
  try {
    const out: Outcome = { decisions: {}, messages: [] };
    await inProcess(out);
    cli(out, reword ? { FOLIO_TEST_REWORD_ERRORS: '1' } : {});
    await service(out);
    return out;
  } finally {
    if (before === undefined) delete process.env.FOLIO_TEST_REWORD_ERRORS;
    else process.env.FOLIO_TEST_REWORD_ERRORS = before;
  }
}

test('every message reworded, every decision the same', { timeout: 600_000 }, async () => {
  const plain = await outcome(false);
  const reworded = await outcome(true);
  assert.deepEqual(reworded.decisions, plain.decisions);
  // The decisions are the ones the error model promises (not merely equal to each other).
  assert.deepEqual(
    Object.fromEntries(
      Object.entries(plain.decisions).map(([k, v]) => [
        k,
        typeof v === 'object' && v ? (v as { kind: string }).kind : v,
      ]),
    ),
    {
      damaged: 'damaged',
      'damaged page': 'damaged',
      encrypted: 'encrypted',
      'wrong password': 'password',
      'over the page limit': 'limit',
      'bad page selection': 'input',
      'missing file': 'not-found',
      'cancelled page': 'cancelled',
      'cli damaged and locked': 1,
      'cli over the page limit': 1,
      'cli bad page selection': 2,
      'http page limit': 413,
      'http time limit': 504,
      'http damaged': 422,
      'http locked': 422,
    },
  );
  assert.equal((plain.decisions.encrypted as { extension: { do: string } }).extension.do, 'ask-password');
  assert.equal((plain.decisions['wrong password'] as { extension: { do: string } }).extension.do, 'ask-password');
  assert.equal((plain.decisions.damaged as { extension: { do: string } }).extension.do, 'show');
  assert.equal((plain.decisions['cancelled page'] as { cancelled: boolean }).cancelled, true);
  // And the words really changed, everywhere.
  assert.equal(reworded.messages.length, plain.messages.length);
  plain.messages.forEach((m, i) => {
    assert.ok(m.length > 0, `message ${i} is empty`);
    assert.notEqual(reworded.messages[i], m, `message ${i} was not reworded: ${m}`);
    assert.match(reworded.messages[i]!, /⟲/, `message ${i} went through the rewording hook`);
  });
});
