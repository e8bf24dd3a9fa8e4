/**
 * Issue 21 items 2 and 3 through the real CLI on PDFs printed by Chromium: a caption whose text
 * is `Figure 1: a\](/etc/hostname) b` (or `/dev/zero`) must not make any export read that file.
 * Before the fix, the export re-read picture paths from the Markdown, where the caption's
 * unescaped backslash let the text close the alt and link the picture to /etc/hostname:
 * `--images embed` put its bytes in the output and `--format docling` read /dev/zero until the
 * memory ran out.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { fixture, runCli } from './issue21Cli';
import { readPictureFile, readPictureHeader } from '../../server/export/pictureFile';
import { binaryHash, renderExport } from '../../server/export';
import { createHash } from 'node:crypto';

let dir: string;
const env = () => ({ FOLIO_CACHE_DIR: join(dir, 'cache') });
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'folio-sec-pictures-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function dataUris(text: string): Buffer[] {
  return [...text.matchAll(/data:image\/png;base64,([A-Za-z0-9+/=]*)/g)].map((m) => Buffer.from(m[1]!, 'base64'));
}

function workCopy(name: string): string {
  const sub = mkdtempSync(join(dir, 'case-'));
  const pdf = join(sub, name);
  copyFileSync(fixture(name), pdf);
  return pdf;
}

test('--images embed: a caption that writes ](/etc/hostname) embeds the picture, never the file it names', async () => {
  const pdf = workCopy('caption-hostname.pdf');
  const out = join(dir, 'embed.md');
  const r = await runCli(['convert', pdf, '-o', out, '-q', '--images', 'embed'], { cwd: dir, env: env() });
  assert.equal(r.status, 0, r.stderr);
  const md = readFileSync(out, 'utf8');
  const uris = dataUris(md);
  assert.equal(uris.length, 1, md.slice(0, 800));
  assert.ok(
    uris[0]!.subarray(0, 8).equals(PNG),
    `the embedded bytes are a PNG, not ${JSON.stringify(uris[0]!.subarray(0, 16).toString())}`,
  );
  // The alt text keeps the caption as text: every Markdown-significant character escaped, so the
  // image's target is the data URI and nothing else.
  const img = /!\[((?:[^\]\\]|\\.)*)\]\(([^)\s]*)\)/.exec(md);
  assert.ok(img, md);
  assert.ok(img[2]!.startsWith('data:image/png;base64,'), `the picture's target: ${img[2]!.slice(0, 60)}`);
  assert.equal(img[1]!.replace(/\\(.)/g, '$1'), 'Figure 1: a\\](/etc/hostname) b');
});

test('--format docling --images embed: the picture is the crop, not /etc/hostname', async () => {
  const pdf = workCopy('caption-hostname.pdf');
  const out = join(dir, 'embed.docling.json');
  const r = await runCli(['convert', pdf, '-o', out, '-q', '--format', 'docling', '--images', 'embed'], {
    cwd: dir,
    env: env(),
  });
  assert.equal(r.status, 0, r.stderr);
  const doc = JSON.parse(readFileSync(out, 'utf8'));
  assert.equal(doc.pictures.length, 1);
  const uri: string = doc.pictures[0].image.uri;
  assert.ok(uri.startsWith('data:image/png;base64,'), uri.slice(0, 60));
  assert.ok(
    Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64')
      .subarray(0, 8)
      .equals(PNG),
  );
  assert.ok(doc.pictures[0].image.size.width > 0, 'the size is read from the crop');
});

test('--format docling (linked pictures): a caption naming /dev/zero is never read; memory stays bounded', async () => {
  const pdf = workCopy('caption-devzero.pdf');
  const outDir = join(dir, 'zero-out');
  mkdirSync(outDir);
  const out = join(outDir, 'zero.docling.json');
  const r = await runCli(['convert', pdf, '-o', out, '-q', '--format', 'docling'], {
    cwd: dir,
    env: env(),
    maxRssMb: 1200,
    timeoutMs: 120_000,
  });
  assert.equal(r.killed, undefined, `the CLI was stopped by the test's guard (${r.killed}; peak ${r.peakRssMb} MB)`);
  assert.equal(r.status, 0, r.stderr);
  const doc = JSON.parse(readFileSync(out, 'utf8'));
  const uri: string = doc.pictures[0].image.uri;
  assert.match(uri, /^zero\.assets\/.+\.png$/);
  assert.ok(existsSync(join(outDir, decodeURIComponent(uri))));
  assert.ok(doc.pictures[0].image.size.width > 0);
  process.stdout.write(`# docling export of the /dev/zero caption: peak RSS ${r.peakRssMb} MB, ${r.wallMs} ms\n`);
});

test('pictureFile: only regular files really inside the pictures folder, size-capped, are read', () => {
  const base = mkdtempSync(join(dir, 'pf-'));
  const assets = join(base, 'doc.assets');
  mkdirSync(assets);
  writeFileSync(join(assets, 'ok.png'), Buffer.concat([PNG, Buffer.alloc(100)]));
  symlinkSync('/etc/hostname', join(assets, 'host.png'));
  symlinkSync('/dev/zero', join(assets, 'zero.png'));
  execFileSync('mkfifo', [join(assets, 'fifo.png')]);
  writeFileSync(join(base, 'beside.png'), PNG);
  const folders = { baseDir: base, root: assets };
  assert.equal(readPictureFile('doc.assets/ok.png', folders).length, 108);
  assert.ok(readPictureHeader('doc.assets/ok.png', folders, 8).equals(PNG));
  const refused = (path: string, why: RegExp, max?: number) =>
    assert.throws(() => readPictureFile(path, folders, max), why, path);
  refused('/etc/hostname', /not a relative path/);
  refused('doc.assets/../../etc/hostname', /"\.\." segment/);
  refused('file:///etc/hostname', /not a relative path/);
  refused('doc.assets/host.png', /outside the pictures folder/);
  refused('doc.assets/zero.png', /outside the pictures folder/);
  refused('beside.png', /outside the pictures folder/);
  refused('doc.assets/fifo.png', /not a regular file/); // opened without blocking, then refused
  refused('doc.assets', /outside the pictures folder/);
  refused('doc.assets/ok.png', /larger than/, 50);
});

test('the docling export hashes its source only as a regular file, in chunks (a device path costs nothing)', () => {
  const t = Date.now();
  const out = renderExport({
    format: 'docling',
    pdfPath: '/dev/zero',
    pages: [],
    images: 'none',
    imagesBaseDir: dir,
    keepFurniture: false,
  });
  assert.equal(JSON.parse(out.text).origin.binary_hash, 0);
  assert.ok(Date.now() - t < 5000);
  const pdf = fixture('caption-hostname.pdf');
  assert.equal(binaryHash(pdf), createHash('sha256').update(readFileSync(pdf)).digest().readUIntBE(0, 6));
});
