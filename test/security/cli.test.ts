/**
 * Issue 10 through the real `folio` CLI (dist/cli.js) on real PDFs: no overwrite of a file folio
 * did not write (item 3), unique batch outputs (item 3), no write through a linked `.md` (item 1),
 * picture links that resolve and a 250-character file name (item 8), a private default cache
 * (item 9).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { repoRoot, corpusPath } from '../helpers/corpus';

let dir: string;
const sample = () => join(repoRoot(), 'test', 'fixtures', 'sample.pdf');
const run = (env: NodeJS.ProcessEnv, ...args: string[]) =>
  spawnSync(process.execPath, [join(repoRoot(), 'dist', 'cli.js'), ...args], {
    encoding: 'utf8',
    cwd: dir,
    timeout: 180_000,
    env: { ...process.env, ...env },
  });
const cacheEnv = () => ({ FOLIO_CACHE_DIR: join(dir, 'cache') });

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'folio-sec-cli-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('the CLI never overwrites a file it did not write, or one edited since, unless --force', () => {
  const pdf = join(dir, 'notes.pdf');
  copyFileSync(sample(), pdf);
  const md = join(dir, 'notes.md');
  writeFileSync(md, 'my own notes\n');
  let r = run(cacheEnv(), 'convert', pdf, '-q');
  assert.equal(r.status, 1);
  assert.match(r.stderr, /notes\.md already exists and was not written by folio; pass --force/);
  assert.equal(readFileSync(md, 'utf8'), 'my own notes\n', 'the user file is untouched');

  r = run(cacheEnv(), 'convert', pdf, '-q', '--force');
  assert.equal(r.status, 0, r.stderr);
  assert.notEqual(readFileSync(md, 'utf8'), 'my own notes\n');

  // folio wrote it and nobody changed it: converting again replaces it without --force.
  r = run(cacheEnv(), 'convert', pdf, '-q');
  assert.equal(r.status, 0, r.stderr);

  // Edited since folio wrote it: refused again.
  writeFileSync(md, readFileSync(md, 'utf8') + '\nmy addition\n');
  r = run(cacheEnv(), 'convert', pdf, '-q');
  assert.equal(r.status, 1);
  assert.match(r.stderr, /was changed since folio wrote it/);
  assert.match(readFileSync(md, 'utf8'), /my addition/);
});

test('batch: same names in different folders keep their folders under -o; same.pdf and same.PDF never share an output', () => {
  const src = join(dir, 'batch');
  mkdirSync(join(src, 'd1'), { recursive: true });
  mkdirSync(join(src, 'd2'), { recursive: true });
  copyFileSync(sample(), join(src, 'd1', 'same.pdf'));
  copyFileSync(sample(), join(src, 'd2', 'same.PDF'));
  copyFileSync(sample(), join(src, 'd2', 'same.pdf'));
  const out = join(dir, 'batch-out');
  const r = run(cacheEnv(), 'convert', src, '-o', out, '-q', '--pages', '1');
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(readdirSync(out).sort(), ['d1', 'd2']);
  assert.deepEqual(readdirSync(join(out, 'd1')), ['same.md']);
  assert.deepEqual(
    readdirSync(join(out, 'd2'))
      .filter((n) => n.endsWith('.md'))
      .sort(),
    ['same-2.md', 'same.md'],
  );
  // Files named one by one from different folders go straight into -o, still apart.
  const flat = join(dir, 'flat-out');
  const r2 = run(
    cacheEnv(),
    'convert',
    join(src, 'd1', 'same.pdf'),
    join(src, 'd2', 'same.PDF'),
    '-o',
    flat + '/',
    '-q',
    '--pages',
    '1',
  );
  assert.equal(r2.status, 0, r2.stderr);
  assert.deepEqual(
    readdirSync(flat)
      .filter((n) => n.endsWith('.md'))
      .sort(),
    ['same-2.md', 'same.md'],
  );
});

test('a linked .md is refused, and the file it points to is untouched', () => {
  const ws = join(dir, 'linked');
  mkdirSync(ws);
  const victim = join(dir, 'victim.txt');
  writeFileSync(victim, 'precious');
  copyFileSync(sample(), join(ws, 'doc.pdf'));
  symlinkSync(victim, join(ws, 'doc.md'));
  const r = run(cacheEnv(), 'convert', join(ws, 'doc.pdf'), '-q', '--force');
  assert.equal(r.status, 1);
  assert.match(r.stderr, /doc\.md is a symbolic link/);
  assert.equal(readFileSync(victim, 'utf8'), 'precious');
});

test('a 250-character PDF name converts, and its pictures are linked in the Markdown and resolve', () => {
  const long = join(dir, 'long');
  mkdirSync(long);
  const name = 'p'.repeat(246) + '.pdf';
  assert.equal(name.length, 250);
  copyFileSync(corpusPath('docling/pdf/amt_handbook_sample.pdf'), join(long, name));
  const r = run(cacheEnv(), 'convert', join(long, name), '-q', '--pages', '1');
  assert.equal(r.status, 0, r.stderr);
  const mdName = readdirSync(long).find((n) => n.endsWith('.md'));
  assert.equal(mdName, 'p'.repeat(246) + '.md');
  const md = readFileSync(join(long, mdName!), 'utf8');
  const links = [...md.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);
  assert.ok(links.length >= 1, `a picture link in:\n${md.slice(0, 600)}`);
  for (const l of links) assert.ok(existsSync(join(long, decodeURIComponent(l))), `${l} resolves to a file`);
  assert.ok(!md.includes('<!-- image -->'), 'no picture left as a bare placeholder');
  assert.ok(readdirSync(long).every((n) => Buffer.byteLength(n) <= 255));
});

test('picture links percent-encode # and spaces and still resolve', () => {
  const ws = join(dir, 'hash dir');
  mkdirSync(ws);
  copyFileSync(corpusPath('docling/pdf/amt_handbook_sample.pdf'), join(ws, 'report #1 50%.pdf'));
  const r = run(cacheEnv(), 'convert', join(ws, 'report #1 50%.pdf'), '-q', '--pages', '1');
  assert.equal(r.status, 0, r.stderr);
  const md = readFileSync(join(ws, 'report #1 50%.md'), 'utf8');
  const link = /!\[[^\]]*\]\(([^)\s]+)\)/.exec(md)?.[1];
  assert.ok(link?.startsWith('report%20%231%2050%25.assets/'), String(link));
  assert.ok(existsSync(join(ws, decodeURIComponent(link!))));
});

test('the default page-image cache is per user and private (0700), not a shared /tmp folder', () => {
  const xdg = join(dir, 'xdg');
  const env = { FOLIO_CACHE_DIR: '', XDG_CACHE_HOME: xdg };
  const r = run(env, 'convert', sample(), '-o', join(dir, 'img.md'), '-q', '--images');
  assert.equal(r.status, 0, r.stderr);
  const pages = join(xdg, 'folio', 'pages');
  assert.equal(lstatSync(pages).mode & 0o777, 0o700);
  const pngs = readdirSync(pages).filter((n) => n.endsWith('.png'));
  assert.equal(pngs.length, 2);
  for (const p of pngs) assert.equal(lstatSync(join(pages, p)).mode & 0o077, 0);
});
