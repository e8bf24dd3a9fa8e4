/** The `folio` CLI (dist/cli.js) on real PDFs: outputs, formats, page selection, exit codes. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { repoRoot, corpusPath } from '../helpers/corpus';

let dir: string;
const cli = () => join(repoRoot(), 'dist', 'cli.js');
const run = (...args: string[]) =>
  spawnSync(process.execPath, [cli(), ...args], { encoding: 'utf8', cwd: dir, timeout: 180_000 });

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'folio-cli-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('convert writes Markdown beside the PDF and says where', () => {
  const pdf = join(dir, 'sample.pdf');
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), pdf);
  const r = run('convert', pdf);
  assert.equal(r.status, 0, r.stderr);
  const out = join(dir, 'sample.md');
  assert.ok(r.stdout.includes(out), `stdout names the output: ${r.stdout}`);
  const md = readFileSync(out, 'utf8');
  assert.match(md, /^#{1,3} .+/m, 'has headings');
  assert.ok(md.length > 500);
});

test('--format doctags and json, --pages, -o', () => {
  const pdf = join(repoRoot(), 'test', 'fixtures', 'sample.pdf');
  const dt = join(dir, 'out.doctags.txt');
  let r = run('convert', pdf, '--format', 'doctags', '-o', dt, '--pages', '1');
  assert.equal(r.status, 0, r.stderr);
  const doctags = readFileSync(dt, 'utf8');
  assert.match(doctags, /^<doctag>/);
  assert.match(doctags, /<loc_\d+><loc_\d+><loc_\d+><loc_\d+>/);
  assert.ok(!doctags.includes('<page_break>'), 'one page only');

  const js = join(dir, 'out.json');
  r = run('convert', pdf, '--format', 'json', '-o', js);
  assert.equal(r.status, 0, r.stderr);
  const summary = JSON.parse(readFileSync(js, 'utf8'));
  assert.equal(summary.pageCount, 2);
  assert.deepEqual(summary.pagesDone, [1, 2]);
  assert.equal(summary.pages.length, 2);
  assert.ok(summary.pages[0].regions.length > 0);
});

test('several files: the bad one fails with a one-line reason, the others convert, exit non-zero', () => {
  const good = join(dir, 'good.pdf');
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'two-column.pdf'), good);
  const bad = join(dir, 'bad.pdf');
  writeFileSync(bad, 'not a pdf');
  const locked = corpusPath('docling/pdf/2206.01062_pg3.password.pdf');
  const outDir = join(dir, 'many');
  const r = run('convert', good, bad, locked, '-o', outDir + '/');
  assert.equal(r.status, 1);
  assert.ok(existsSync(join(outDir, 'good.md')), 'good file converted');
  const lines = r.stderr
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('folio: '));
  assert.equal(lines.length, 2, r.stderr);
  assert.match(r.stderr, /folio: .*bad\.pdf: .*not a PDF/i);
  assert.match(r.stderr, /folio: .*password\.pdf: .*password/i);
});

test('usage errors exit 2 with a message', () => {
  const r = run('convert', '--format', 'docx', 'x.pdf');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--format must be/);
});

test('a damaged PDF gets a reason that says so, not a bare parser message', () => {
  const r = run('convert', corpusPath('pdfjs-test-pdfs/poppler-742-0-fuzzed.pdf'), '-o', join(dir, 'fuzzed.md'));
  assert.equal(r.status, 1);
  assert.match(r.stderr, /folio: .*poppler-742-0-fuzzed\.pdf: .*damaged/);
  assert.ok(!existsSync(join(dir, 'fuzzed.md')), 'nothing written when no page converted');
});
