/**
 * What `folio convert` does at start (issue 22, start-up; bench/startup.ts measures the time):
 * the launcher's prestarted page worker is the one that converts first, a born-digital PDF does
 * not load onnxruntime, plain math does not load KaTeX, pdf.js leaves the engine's own `push` and `JSON`
 * in place, and Node ≥ 22 keeps compiled code in Folio's private cache folder.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/corpus';
import { cachedNode } from '../helpers/cachedNode';
import { pdfjs } from '../../server/pdf/pdfjs';
import { prestartPageWorker, takePrestartedWorker } from '../../server/worker/prestart';
import { renders } from '../../server/layout/math/validate';

let dir: string;
const cli = () => join(repoRoot(), 'dist', 'cli.js');
const sample = () => join(repoRoot(), 'test', 'fixtures', 'sample.pdf');
const FLOOR = cachedNode('node-floor');

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'folio-startup-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function convert(node: string, env: NodeJS.ProcessEnv, out: string) {
  const r = spawnSync(node, [cli(), 'convert', sample(), '-o', out, '--force', '-q'], {
    encoding: 'utf8',
    cwd: dir,
    timeout: 180_000,
    env: { ...process.env, ...env },
  });
  assert.equal(r.status, 0, r.stderr);
  return r;
}

test('convert converts on the page worker the launcher started; the pool spawns only the others', () => {
  const r = convert(process.execPath, { FOLIO_TRACE_STARTUP: '1' }, join(dir, 'traced.md'));
  const marks = r.stderr.split('\n').filter((l) => l.startsWith('folio-trace '));
  const names = marks.map((l) => l.split(' ')[3]);
  const count = (n: string) => names.filter((m) => m === n).length;
  // sample.pdf has two pages and the CLI two workers: one prestarted, one spawned by the pool.
  assert.equal(count('worker:start'), count('pool:spawn') + 1, marks.join('\n'));
  const threadOf = (n: string) => marks.find((l) => l.split(' ')[3] === n)!.split(' ')[1];
  assert.equal(threadOf('worker:opened'), threadOf('worker:start'), 'the first worker up opens the PDF first');
  assert.ok(
    names.indexOf('pool:spawn') === -1 || names.indexOf('pool:spawn') > names.indexOf('worker:opened'),
    `the pool spawned a worker before the prestarted one opened the PDF:\n${marks.join('\n')}`,
  );
  for (const n of ['cli:main', 'pdfjs:loaded', 'worker:opened', 'worker:analyzed', 'cli:written'])
    assert.ok(names.includes(n), `mark ${n} missing:\n${marks.join('\n')}`);
  // Marks carry epoch milliseconds, so both threads line up on one clock.
  const at = (n: string) => Number(marks.find((l) => l.split(' ')[3] === n)!.split(' ')[2]);
  assert.ok(at('pdfjs:loaded') <= at('worker:opened') && at('worker:analyzed') <= at('cli:written'));
});

test('a pool that needs another heap limit does not adopt the prestarted worker, which is stopped', async () => {
  const script = join(repoRoot(), 'dist', 'pageWorker.js');
  prestartPageWorker(script, 3072);
  const entry = takePrestartedWorker(script, 1024);
  assert.equal(entry, undefined);
  prestartPageWorker(script, 3072);
  const same = takePrestartedWorker(script, 3072);
  assert.ok(same, 'the matching worker is handed over');
  assert.equal(takePrestartedWorker(script, 3072), undefined, 'taken once');
  const exited = new Promise<number>((resolve) => same.worker.once('exit', resolve));
  await same.worker.terminate();
  await exited;
});

test('a born-digital conversion does not load onnxruntime', () => {
  const hook = join(dir, 'hook.js');
  const log = join(dir, 'loads.txt');
  // Preloaded into the CLI and (execArgv is inherited) its page worker: logs the packages required.
  writeFileSync(
    hook,
    `const M = require('module'); const fs = require('fs'); const orig = M._load;
     M._load = function (req) { if (/^(onnxruntime-node|@napi-rs\\/canvas)$/.test(req)) fs.appendFileSync(${JSON.stringify(log)}, req + '\\n'); return orig.apply(this, arguments); };`,
  );
  convert(process.execPath, { NODE_OPTIONS: `--require=${hook}` }, join(dir, 'hooked.md'));
  const loads = existsSync(log) ? readFileSync(log, 'utf8') : '';
  // pdf.js requires the canvas in the page worker: the hook did see that thread's loads.
  assert.match(loads, /@napi-rs\/canvas/, `the hook saw no load in the page worker:\n${loads}`);
  assert.doesNotMatch(loads, /onnxruntime-node/, 'onnxruntime was loaded');
});

test('plain math is taken as typeset without KaTeX; anything else asks KaTeX', () => {
  const katexLoaded = () => Object.keys(require.cache).some((k) => /[/\\]katex[/\\]/.test(k));
  assert.equal(katexLoaded(), false, 'nothing loaded KaTeX before this test');
  for (const tex of ['x+1', "f'(a, b) = [0, 1)", 'a < b | c', 'up']) assert.equal(renders(tex, false), true, tex);
  assert.equal(katexLoaded(), false, 'plain math loaded KaTeX');
  assert.equal(renders('\\frac{a}{b}', true), true);
  assert.equal(renders('\\frac{a}{', true), false);
  assert.equal(katexLoaded(), true);
});

test("after pdf.js loads, push and JSON are the engine's own, and its worker module is preloaded", async () => {
  const lib = await pdfjs();
  for (const [name, fn] of [
    ['Array.prototype.push', Array.prototype.push],
    ['JSON.parse', JSON.parse],
    ['JSON.stringify', JSON.stringify],
  ] as const)
    assert.match(Function.prototype.toString.call(fn), /\[native code\]/, `${name} was left replaced`);
  const g = globalThis as { pdfjsWorker?: { WorkerMessageHandler?: unknown } };
  assert.ok(g.pdfjsWorker?.WorkerMessageHandler, 'pdf.js finds its worker module loaded');
  // pdf.js still works with them: a real document opens and reads.
  const data = new Uint8Array(readFileSync(sample()));
  const doc = await lib.getDocument({ data, verbosity: 0 }).promise;
  const text = await (await doc.getPage(1)).getTextContent();
  assert.ok(text.items.length > 10);
  await doc.loadingTask.destroy();
});

test('Node ≥ 22 keeps compiled code in Folio’s private cache folder; NODE_DISABLE_COMPILE_CACHE turns it off', () => {
  assert.ok(existsSync(FLOOR), `${FLOOR} missing: run \`bash test/e2e/setup.sh\` (npm test's pretest does)`);
  const cacheHome = join(dir, 'xdg');
  convert(FLOOR, { XDG_CACHE_HOME: cacheHome, FOLIO_CACHE_DIR: '' }, join(dir, 'floor.md'));
  const v8 = join(cacheHome, 'folio', 'v8');
  assert.ok(existsSync(v8), `${v8} was not made`);
  assert.equal(statSync(v8).mode & 0o777, 0o700);
  const entries = readdirSync(v8, { recursive: true }) as string[];
  assert.ok(entries.length >= 2, `no compiled code kept: ${entries.join(', ')}`);
  const off = join(dir, 'xdg-off');
  convert(FLOOR, { XDG_CACHE_HOME: off, FOLIO_CACHE_DIR: '', NODE_DISABLE_COMPILE_CACHE: '1' }, join(dir, 'off.md'));
  assert.ok(!existsSync(join(off, 'folio', 'v8')), 'a cache folder was made although the cache is off');
});
