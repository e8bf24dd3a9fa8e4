/**
 * Security round 3 (issue 34), F9: the cache root was never checked and the CLI's "what folio
 * wrote" records were read as they were found, so whoever controls `FOLIO_CACHE_DIR` (a shared
 * folder, another user's) could plant a record and make `folio convert` replace a hand-written
 * file without --force. Through the real CLI on a real PDF.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { repoRoot } from '../helpers/corpus';

let dir: string;
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const run = (cache: string, ...args: string[]) =>
  spawnSync(process.execPath, [join(repoRoot(), 'dist', 'cli.js'), ...args], {
    encoding: 'utf8',
    cwd: dir,
    timeout: 180_000,
    env: { ...process.env, FOLIO_CACHE_DIR: cache },
  });

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'folio-sec-cacheroot-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** A hand-written report.md beside report.pdf, and a record claiming folio wrote exactly it, in `written`. */
function victim(name: string, written: string): { md: string; pdf: string } {
  const folder = join(dir, name);
  mkdirSync(folder);
  const pdf = join(folder, 'report.pdf');
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), pdf);
  const md = join(folder, 'report.md');
  writeFileSync(md, 'my own notes, written by hand\n');
  mkdirSync(written, { recursive: true });
  writeFileSync(join(written, sha256(resolve(md)).slice(0, 32)), sha256(readFileSync(md)) + '\n');
  return { md, pdf };
}

test('F9: a record planted through a linked written/ folder does not let the CLI replace a hand-written file', () => {
  const cache = join(dir, 'cache-link');
  mkdirSync(cache, { mode: 0o700 });
  const { md, pdf } = victim('v-link', join(dir, 'planted'));
  symlinkSync(join(dir, 'planted'), join(cache, 'written'));
  const r = run(cache, 'convert', pdf, '-q');
  assert.equal(readFileSync(md, 'utf8'), 'my own notes, written by hand\n', `replaced: ${r.stderr}`);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /report\.md already exists and was not written by folio; pass --force/);
});

test('F9: a cache root another user can write to is made private before use', () => {
  const cache = join(dir, 'cache-open');
  mkdirSync(cache);
  chmodSync(cache, 0o777);
  const pdf = join(dir, 'open.pdf');
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), pdf);
  const r = run(cache, 'convert', pdf, '-q');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(statSync(cache).mode & 0o777, 0o700, 'the root is 0700 after a run');
});

test(
  'F9: a cache root or record folder owned by another user is not trusted',
  { skip: process.getuid?.() !== 0 ? 'needs root to create files of another user (run as root in CI)' : false },
  () => {
    // The report's case: the root belongs to uid 1000, who planted written/ with the record.
    const theirs = join(dir, 'cache-theirs');
    const { md, pdf } = victim('v-theirs', join(theirs, 'written'));
    for (const p of [theirs, join(theirs, 'written')]) chownSync(p, 1000, 1000);
    const r = run(theirs, 'convert', pdf, '-q');
    assert.equal(readFileSync(md, 'utf8'), 'my own notes, written by hand\n', `replaced: ${r.stderr}`);
    assert.notEqual(r.status, 0);
    // Our own root, but a written/ folder of theirs inside it.
    const ours = join(dir, 'cache-ours');
    mkdirSync(ours, { mode: 0o700 });
    const v2 = victim('v-ours', join(ours, 'written'));
    chownSync(join(ours, 'written'), 1000, 1000);
    const r2 = run(ours, 'convert', v2.pdf, '-q');
    assert.equal(readFileSync(v2.md, 'utf8'), 'my own notes, written by hand\n', `replaced: ${r2.stderr}`);
    assert.match(r2.stderr, /report\.md already exists and was not written by folio/);
  },
);
