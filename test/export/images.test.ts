/** `--images link|embed|none` on a real PDF with pictures (docling's picture_classification.pdf). */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { DoclingDocument } from '@docling/docling-core';
import { corpusPath, repoRoot } from '../helpers/corpus';

let dir: string;
const convert = (...args: string[]) =>
  spawnSync(process.execPath, [join(repoRoot(), 'dist', 'cli.js'), 'convert', 'pics.pdf', '-q', ...args], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 180_000,
  });

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'folio-images-'));
  copyFileSync(corpusPath('docling/pdf/picture_classification.pdf'), join(dir, 'pics.pdf'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('link (default): PNG crops in pics.assets/, linked relative to the Markdown', () => {
  const r = convert();
  assert.equal(r.status, 0, r.stderr);
  const md = readFileSync(join(dir, 'pics.md'), 'utf8');
  const links = [...md.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => decodeURI(m[1]!));
  assert.equal(links.length, 2, md);
  for (const l of links) assert.ok(existsSync(join(dir, l)), `${l} exists`);
  rmSync(join(dir, 'pics.assets'), { recursive: true });
});

test('embed: data URIs holding the PNGs in Markdown and DoclingDocument, no files left', () => {
  let r = convert('--images', 'embed');
  assert.equal(r.status, 0, r.stderr);
  const md = readFileSync(join(dir, 'pics.md'), 'utf8');
  const uris = [...md.matchAll(/!\[[^\]]*\]\((data:image\/png;base64,[A-Za-z0-9+/=]+)\)/g)].map((m) => m[1]!);
  assert.equal(uris.length, 2);
  for (const u of uris) {
    const png = Buffer.from(u.slice(u.indexOf(',') + 1), 'base64');
    assert.equal(png.readUInt32BE(0), 0x89504e47, 'a PNG');
    assert.ok(png.readUInt32BE(16) > 100, 'a real crop');
  }
  assert.ok(!existsSync(join(dir, 'pics.assets')), 'no asset folder');
  assert.deepEqual(
    readdirSync(tmpdir()).filter(
      (n) => n.startsWith('folio-pictures-') && readdirSync(join(tmpdir(), n)).some((f) => f.startsWith('pics-')),
    ),
    [],
    'temporary crops removed',
  );
  r = convert('--images=embed', '--format', 'docling');
  assert.equal(r.status, 0, r.stderr);
  const doc = JSON.parse(readFileSync(join(dir, 'pics.docling.json'), 'utf8')) as DoclingDocument;
  assert.equal(doc.pictures!.length, 2);
  for (const p of doc.pictures!) {
    assert.match(p.image!.uri, /^data:image\/png;base64,/);
    assert.ok(p.image!.size.width! > 100 && p.image!.dpi > 100, 'size and dpi read from the embedded PNG');
  }
});

test('none: the placeholder, no crops saved', () => {
  const r = convert('--images', 'none');
  assert.equal(r.status, 0, r.stderr);
  const md = readFileSync(join(dir, 'pics.md'), 'utf8');
  assert.equal((md.match(/<!-- image -->/g) ?? []).length, 2);
  assert.ok(!md.includes(']('), 'no links');
  assert.ok(!existsSync(join(dir, 'pics.assets')));
  const bad = convert('--images=inline');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--images must be link, embed or none/);
});
