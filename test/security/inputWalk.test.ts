/**
 * Issue 21 item 13 through the real CLI: a symbolic link loop in an input folder is skipped with
 * a warning and the other PDFs convert (before: `ELOOP` failed the whole batch, after following
 * `sub/up -> ..` forty levels deep); a linked assets folder gets a warning (before: every picture
 * silently became `<!-- image -->`).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { fixture, runCli } from './issue21Cli';
import { repoRoot } from '../helpers/corpus';

let dir: string;
const env = () => ({ FOLIO_CACHE_DIR: join(dir, 'cache') });

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'folio-sec-walk-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('a link loop in an input folder is skipped with a warning; the other PDFs convert once each', async () => {
  const input = join(dir, 'in');
  mkdirSync(join(input, 'sub'), { recursive: true });
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), join(input, 'a.pdf'));
  copyFileSync(fixture('caption-hostname.pdf'), join(input, 'sub', 'b.pdf'));
  symlinkSync('..', join(input, 'sub', 'up')); // a link back up: a loop when followed
  symlinkSync('y.pdf', join(input, 'x.pdf')); // x.pdf -> y.pdf -> x.pdf: ELOOP
  symlinkSync('x.pdf', join(input, 'y.pdf'));
  const out = join(dir, 'out');
  const r = await runCli(['convert', input, '-o', out + '/', '-q', '--pages', '1'], {
    cwd: dir,
    env: env(),
    timeoutMs: 240_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /folio: warning: .*in\/sub\/up was skipped: it is a link to .*in, a folder already searched/);
  assert.match(r.stderr, /folio: warning: .*in\/x\.pdf was skipped: a symbolic link loop \(ELOOP\)/);
  assert.match(r.stderr, /folio: warning: .*in\/y\.pdf was skipped: a symbolic link loop \(ELOOP\)/);
  assert.deepEqual(readdirSync(out).sort(), ['a.md', 'sub']);
  assert.deepEqual(
    readdirSync(join(out, 'sub')).filter((n) => n.endsWith('.md')),
    ['b.md'],
  );
});

test('a linked assets folder is reported, and nothing is written through it', async () => {
  const ws = join(dir, 'ws');
  const elsewhere = join(dir, 'elsewhere');
  mkdirSync(ws);
  mkdirSync(elsewhere);
  copyFileSync(fixture('caption-hostname.pdf'), join(ws, 'doc.pdf'));
  symlinkSync(elsewhere, join(ws, 'doc.assets'));
  const r = await runCli(['convert', join(ws, 'doc.pdf'), '-q'], { cwd: dir, env: env() });
  assert.equal(r.status, 0, r.stderr);
  assert.match(
    r.stderr,
    /doc\.pdf: the pictures folder .*doc\.assets is a symbolic link: Folio does not write through links, so this document's pictures are not saved/,
  );
  assert.deepEqual(readdirSync(elsewhere), []);
  assert.ok(existsSync(join(ws, 'doc.md')));
  assert.match(readFileSync(join(ws, 'doc.md'), 'utf8'), /<!-- image -->/);
});
