/**
 * Issue 10, item 1: no write of Folio follows a link that is already there or leaves its folder.
 * Real files and links in a temporary folder; picture crops through real sharp; page images
 * through the real pipeline on a corpus PDF.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fitFileName, isInside, safeWriteFile, safeWriteFileSync, UnsafeWriteError } from '../../common/safeWrite';
import { savePictures } from '../../server/pipeline/pictures';
import { analyzePage, openPdf } from '../../server/pipeline/index';
import type { DocItem } from '../../server/model/items';
import { corpusPath } from '../helpers/corpus';
import { options } from '../pipeline/analyze';

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'folio-sw-'));
}

test('a linked target file is refused and the file it points to is untouched', async () => {
  const dir = scratch();
  try {
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious');
    const ws = join(dir, 'ws');
    mkdirSync(ws);
    symlinkSync(victim, join(ws, 'doc.md'));
    assert.throws(
      () => safeWriteFileSync(join(ws, 'doc.md'), 'converted'),
      (e: Error) => e instanceof UnsafeWriteError && e.message.includes('doc.md') && /symbolic link/.test(e.message),
    );
    await assert.rejects(safeWriteFile(join(ws, 'doc.md'), 'converted'), UnsafeWriteError);
    assert.equal(readFileSync(victim, 'utf8'), 'precious');
    assert.ok(lstatSync(join(ws, 'doc.md')).isSymbolicLink(), 'the link itself is left as it was');
    // A dangling link (to a file that does not exist yet) is refused too: it would create the file.
    symlinkSync(join(dir, 'new-victim'), join(ws, 'b.md'));
    assert.throws(() => safeWriteFileSync(join(ws, 'b.md'), 'x'), UnsafeWriteError);
    assert.deepEqual(readdirSync(dir).sort(), ['victim.txt', 'ws']);
    assert.deepEqual(readdirSync(ws).sort(), ['b.md', 'doc.md'], 'no temporary file left behind');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('folders below the root must be real folders inside it', () => {
  const dir = scratch();
  try {
    const outside = join(dir, 'outside');
    mkdirSync(outside);
    const ws = join(dir, 'ws');
    mkdirSync(ws);
    symlinkSync(outside, join(ws, 'doc.assets'));
    assert.throws(
      () => safeWriteFileSync(join(ws, 'doc.assets', 'p1.png'), 'x', { root: ws }),
      /doc\.assets is a symbolic link/,
    );
    assert.throws(() => safeWriteFileSync(join(ws, '..', 'escape.md'), 'x', { root: ws }), /outside/);
    assert.deepEqual(readdirSync(outside), []);
    // Missing folders below the root are created as real folders.
    safeWriteFileSync(join(ws, 'a', 'b', 'c.md'), 'ok', { root: ws });
    assert.equal(readFileSync(join(ws, 'a', 'b', 'c.md'), 'utf8'), 'ok');
    assert.ok(isInside(ws, join(ws, 'a', '..', 'a')));
    assert.ok(!isInside(ws, join(ws, '..', 'wsx')));
    assert.ok(!isInside(join(dir, 'ws'), join(dir, 'ws-other', 'f')), 'a shared name prefix is not inside');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an existing regular file is replaced by rename (a hard link elsewhere keeps its content)', () => {
  const dir = scratch();
  try {
    const f = join(dir, 'doc.md');
    writeFileSync(f, 'old');
    safeWriteFileSync(f, 'new');
    assert.equal(readFileSync(f, 'utf8'), 'new');
    assert.throws(
      () => safeWriteFileSync(f, 'again', { exclusive: true }),
      (e: NodeJS.ErrnoException) => e.code === 'EEXIST',
    );
    assert.equal(readFileSync(f, 'utf8'), 'new');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('long names: temporary files are short, and fitFileName keeps names within 255 bytes', () => {
  const dir = scratch();
  try {
    const long = 'é'.repeat(40) + 'x'.repeat(165); // 245 bytes
    const name = fitFileName(long, '.folio.json');
    assert.ok(Buffer.byteLength(name) <= 255, `${Buffer.byteLength(name)} bytes`);
    assert.ok(name.endsWith('.folio.json') && name.startsWith('éé'));
    assert.notEqual(
      fitFileName(long + 'a', '.folio.json'),
      fitFileName(long + 'b', '.folio.json'),
      'different long names stay apart',
    );
    assert.equal(fitFileName('short', '.md'), 'short.md');
    // A 251-byte name: `<name>.<pid>.tmp` would exceed NAME_MAX; the short temp name does not.
    const target = join(dir, 'y'.repeat(248) + '.md');
    safeWriteFileSync(target, 'ok');
    assert.equal(readFileSync(target, 'utf8'), 'ok');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('picture crops never go through a linked asset file or a linked assets folder', async () => {
  const dir = scratch();
  try {
    const ws = join(dir, 'ws');
    mkdirSync(ws);
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'precious');
    const img = { data: new Uint8ClampedArray(200 * 100 * 4).fill(200), width: 200, height: 100, scale: 1 };
    const picture = (): DocItem[] => [{ cls: 'picture', text: '', bbox: { x0: 10, y0: 10, x1: 90, y1: 60 } }];
    // The repository shipped doc.assets/doc-p1-1.png → ../../victim.
    mkdirSync(join(ws, 'doc.assets'));
    symlinkSync(victim, join(ws, 'doc.assets', 'doc-p1-1.png'));
    let items = picture();
    let warnings = await savePictures(items, img, join(ws, 'doc.pdf'), 1, join(ws, 'doc.assets'), ws);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /symbolic link/);
    assert.equal(items[0].imagePath, undefined, 'no link to a picture that was not written');
    assert.equal(readFileSync(victim, 'utf8'), 'precious');
    // The repository shipped other.assets → a folder outside.
    const outside = join(dir, 'outside');
    mkdirSync(outside);
    symlinkSync(outside, join(ws, 'other.assets'));
    items = picture();
    warnings = await savePictures(items, img, join(ws, 'other.pdf'), 1, join(ws, 'other.assets'), ws);
    assert.match(warnings[0] ?? '', /other\.assets is a symbolic link/);
    assert.deepEqual(readdirSync(outside), []);
    // And a clean folder gets its PNG.
    items = picture();
    warnings = await savePictures(items, img, join(ws, 'clean.pdf'), 1, join(ws, 'clean.assets'), ws);
    assert.deepEqual(warnings, []);
    assert.equal(items[0].imagePath, 'clean.assets/clean-p1-1.png');
    assert.equal(readFileSync(join(ws, items[0].imagePath!)).subarray(1, 4).toString(), 'PNG');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('page-image cache: a planted link is not trusted or followed; the folder is private (0700)', async () => {
  const dir = scratch();
  const doc = await openPdf(corpusPath('docling/pdf/amt_handbook_sample.pdf'));
  try {
    const cacheDir = join(dir, 'cache');
    mkdirSync(cacheDir, { mode: 0o755 });
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'precious');
    const entry = join(cacheDir, `${doc.fileKey}-p1-s1.png`);
    symlinkSync(victim, entry);
    const a = await analyzePage(doc, 1, options({ renderImages: true, scale: 1, cacheDir }));
    assert.equal(readFileSync(victim, 'utf8'), 'precious', 'the link target was not written');
    assert.ok(lstatSync(entry).isFile() && !lstatSync(entry).isSymbolicLink(), 'the link was replaced by a real PNG');
    assert.equal(a.image?.path, entry);
    assert.equal(lstatSync(cacheDir).mode & 0o777, 0o700);
    assert.equal(lstatSync(entry).mode & 0o077, 0, 'entries are readable by their owner only');
    // A corrupt entry (not a PNG) is rendered again rather than handed to the preview.
    writeFileSync(entry, 'not a png at all, just some bytes to be long enough');
    const b = await analyzePage(doc, 1, options({ renderImages: true, scale: 1, cacheDir }));
    assert.equal(readFileSync(entry).subarray(1, 4).toString(), 'PNG');
    assert.equal(b.image?.width, a.image?.width);
  } finally {
    await doc.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
