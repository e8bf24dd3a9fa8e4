/**
 * The records of what `folio convert` wrote are pruned at most once a day (issue 22's start-up:
 * every run used to read all of them). Real files in a private cache folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pruneWriteRecords } from '../../server/cli/outputs';

const DAY = 86_400_000;

test('old write records are pruned, then not again until a day has passed', () => {
  const root = mkdtempSync(join(tmpdir(), 'folio-prune-'));
  try {
    const env = { FOLIO_CACHE_DIR: root };
    const dir = join(root, 'written');
    mkdirSync(dir, { recursive: true });
    const record = (name: string, ageDays: number, now: number) => {
      const p = join(dir, name);
      writeFileSync(p, 'x\n');
      const t = (now - ageDays * DAY) / 1000;
      utimesSync(p, t, t);
      return p;
    };
    const now = Date.now();
    const old = record('a'.repeat(32), 100, now);
    const fresh = record('b'.repeat(32), 1, now);
    const foreign = record('not-a-record', 100, now);
    pruneWriteRecords(90, env, now);
    assert.equal(existsSync(old), false, 'a record older than 90 days is removed');
    assert.equal(existsSync(fresh), true, 'a recent record stays');
    assert.equal(existsSync(foreign), true, 'a file that is no record is left alone');
    assert.equal(existsSync(join(dir, '.pruned')), true, 'the stamp is written');

    // Within the day the folder is not read: an old record made now survives.
    const later = record('c'.repeat(32), 100, now);
    pruneWriteRecords(90, env, now + DAY / 2);
    assert.equal(existsSync(later), true, 'pruned once already today');

    // A day later it is read again.
    pruneWriteRecords(90, env, now + DAY + 1000);
    assert.equal(existsSync(later), false, 'pruned again after a day');
    assert.equal(existsSync(fresh), true);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a stamp from the future (a clock set back) does not stop pruning', () => {
  const root = mkdtempSync(join(tmpdir(), 'folio-prune-'));
  try {
    const env = { FOLIO_CACHE_DIR: root };
    const dir = join(root, 'written');
    mkdirSync(dir, { recursive: true });
    const now = Date.now();
    const stamp = join(dir, '.pruned');
    writeFileSync(stamp, '');
    utimesSync(stamp, (now + 10 * DAY) / 1000, (now + 10 * DAY) / 1000);
    const old = join(dir, 'd'.repeat(32));
    writeFileSync(old, 'x\n');
    utimesSync(old, (now - 100 * DAY) / 1000, (now - 100 * DAY) / 1000);
    pruneWriteRecords(90, env, now);
    assert.equal(existsSync(old), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
