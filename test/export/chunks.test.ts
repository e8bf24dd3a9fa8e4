/**
 * `--format chunks`: heading paths, size limits in characters and cl100k tokens, splits never
 * inside a word, a table cell or a merged cell, table headers repeated, pages and boxes; on
 * docling's DocTags from the shared corpus and through the CLI on a real PDF.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parseDocTags } from '../../server/doctags/parse';
import { fromGrid, type DocItem, type OtslCell } from '../../server/model/items';
import { chunkDocument, cl100kCounter, splitTable, splitText, type Chunk } from '../../server/export/chunks';
import type { ExportPage } from '../../server/export/pages';
import { corpusPath, repoRoot } from '../helpers/corpus';

function corpusPages(stem: string): ExportPage[] {
  const doctags = readFileSync(corpusPath(`docling/${stem}.doctags.txt`), 'utf8');
  return parseDocTags(doctags).map((p, i) => ({
    page: i + 1,
    width: 612,
    height: 792,
    items: p.items.map((it) => ({ ...it, bbox: it.grid ? fromGrid(it.grid, { width: 612, height: 792 }) : undefined })),
  }));
}

const words = (s: string) => s.split(/\s+/).filter(Boolean);

test('splitText: pieces within the limit, cut only between words, nothing lost', () => {
  const text = 'Tables are split by rows. '.repeat(30) + 'Supercalifragilisticexpialidocious' + ' end of text.';
  const pieces = splitText(text, 60, (s) => s.length);
  assert.ok(pieces.length > 5);
  assert.deepEqual(
    pieces.flatMap((p) => words(p.text)),
    words(text),
    'the words, in order, each whole',
  );
  for (const p of pieces)
    assert.ok(p.text.length <= 60 || (words(p.text).length === 1 && p.oversize), `within the limit: ${p.text}`);
  const long = splitText('a ' + 'x'.repeat(100) + ' b', 20, (s) => s.length);
  assert.deepEqual(
    long.map((p) => p.oversize),
    [false, true, false],
    'a word longer than the limit is kept whole and flagged',
  );
});

test('splitTable: whole rows, header repeated, rows joined by a merged cell kept together', () => {
  const c = (tag: OtslCell['tag'], text = ''): OtslCell => ({ tag, text });
  const rows: OtslCell[][] = [[c('ched', 'Year'), c('ched', 'Value')]];
  for (let i = 0; i < 12; i++) rows.push([c('fcel', `y${i}`), c('fcel', `v${i}`)]);
  rows[6] = [c('fcel', 'merged'), c('fcel', 'v5')];
  rows[7] = [c('ucel'), c('fcel', 'v6')]; // rows 6–7 share one cell
  const pieces = splitTable(rows, 60, (s) => s.length);
  assert.ok(pieces.length >= 3, `split into ${pieces.length}`);
  let next = 0;
  for (const p of pieces) {
    const firstBody = p.text.search(/y\d|merged/);
    assert.ok(
      p.text.indexOf('Year') >= 0 && p.text.indexOf('Year') < firstBody,
      'header repeated, first, in every piece',
    );
    assert.equal(p.start, next, 'pieces follow each other');
    next = p.end;
    if (p.text.includes('merged')) assert.ok(p.text.includes('v6'), 'the merged cell’s rows stay together');
  }
  assert.equal(next, 12, 'every body row once');
  const bodyLines = pieces.flatMap((p) => p.text.split('\n').filter((l) => /y\d|v\d/.test(l)));
  assert.ok(
    bodyLines.every((l) => /^(\||<tr>)/.test(l) || l.startsWith('<t')),
    'only whole rows',
  );
});

function checkChunks(chunks: Chunk[], max: number, size: (s: string) => number): void {
  assert.ok(chunks.length > 0);
  chunks.forEach((c, i) => {
    assert.equal(c.index, i);
    assert.equal(c.size, size(c.text));
    if (!c.oversize) assert.ok(c.size <= max, `chunk ${i} (${c.size}) within ${max}`);
    assert.ok(c.pages.length > 0 && c.boxes.length > 0 && c.kinds.length > 0, `chunk ${i} has pages, boxes, kinds`);
    for (const b of c.boxes) {
      assert.equal(b.coord_origin, 'BOTTOMLEFT');
      assert.ok(b.t >= b.b && b.r >= b.l && b.t <= 792, `box ${JSON.stringify(b)} in page coordinates`);
    }
    // A table cell is never cut: every table line of a chunk is a whole row.
    for (const line of c.text.split('\n'))
      if (line.startsWith('|')) assert.ok(line.endsWith('|'), `whole table row: ${line}`);
  });
}

test('heading path: title, section, subsection; a new section replaces the one it follows', () => {
  const t = (cls: DocItem['cls'], text: string, level?: number): DocItem => ({
    cls,
    text,
    level,
    bbox: { x0: 10, y0: 10, x1: 100, y1: 20 },
  });
  const page: ExportPage = {
    page: 1,
    width: 612,
    height: 792,
    items: [
      t('title', 'Doc'),
      t('text', 'intro'),
      t('section_header', 'One', 1),
      t('section_header', 'One.A', 2),
      t('text', 'deep'),
      t('section_header', 'Two', 1),
      t('text', 'second'),
    ],
  };
  const chunks = chunkDocument([page], { maxSize: 1000, unit: 'chars' });
  assert.deepEqual(
    chunks.map((c) => [c.text, c.headings]),
    [
      ['intro', ['Doc']],
      ['deep', ['Doc', 'One', 'One.A']],
      ['second', ['Doc', 'Two']],
    ],
  );
});

test('docling corpus documents: heading paths, limits in characters and tokens, words and cells whole', () => {
  const pages = corpusPages('gt_without_pdf/2203.01017v2');
  const chars = chunkDocument(pages, { maxSize: 800, unit: 'chars' });
  checkChunks(chars, 800, (s) => s.length);
  // Every word of the body text is in the chunks, whole and in order.
  const bodyItems = pages.flatMap((p) => p.items).filter((it: DocItem) => it.cls === 'text' && it.text.length > 0);
  const all = words(chars.map((c) => c.text).join(' '));
  const sample = bodyItems.flatMap((it) => words(it.text)).slice(0, 400);
  let k = 0;
  for (const w of all) if (k < sample.length && w === sample[k]) k++;
  assert.equal(k, sample.length, 'body words appear whole and in order');
  assert.ok(
    chars.filter((c) => c.headings.length >= 1).length > 10,
    'chunks under section headers carry their heading',
  );
  const methods = chars.find((c) => c.headings.some((h) => /Previous work and State of the Art/.test(h)));
  assert.ok(methods, 'a chunk under "2. Previous work and State of the Art"');
  assert.ok(
    chars.some((c) => c.kinds.includes('table')),
    'tables are chunked',
  );
  assert.ok(
    chars.some((c) => c.pages.length === 1 && c.pages[0]! > 5),
    'pages recorded',
  );

  const count = cl100kCounter();
  const tokens = chunkDocument(pages, { maxSize: 128, unit: 'tokens', countTokens: count });
  checkChunks(tokens, 128, count);
  assert.ok(tokens.length > chars.length, 'a 128-token limit gives more chunks than 800 characters');

  // A table larger than the limit is split by rows with its header in every piece.
  const small = chunkDocument(corpusPages('pdf/2305.03393v1-pg9'), { maxSize: 300, unit: 'chars' });
  const pieces = small.filter((c) => c.tableRows);
  assert.ok(pieces.length >= 2, `table split into ${pieces.length} pieces`);
  const head = pieces[0]!.text.split('\n')[0];
  for (const p of pieces) assert.equal(p.text.split('\n')[0], head, 'header row repeated');
  assert.equal(pieces[pieces.length - 1]!.tableRows!.end, pieces[0]!.tableRows!.of);
});

test('CLI --format chunks --chunk-schema flat writes JSON Lines on a real PDF', () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-chunks-'));
  try {
    const out = join(dir, 'sample.chunks.jsonl');
    const r = spawnSync(
      process.execPath,
      [
        join(repoRoot(), 'dist', 'cli.js'),
        'convert',
        join(repoRoot(), 'test', 'fixtures', 'sample.pdf'),
        '--format',
        'chunks',
        '--chunk-schema',
        'flat',
        '--chunk-size',
        '400',
        '-o',
        out,
        '-q',
      ],
      { encoding: 'utf8', timeout: 180_000 },
    );
    assert.equal(r.status, 0, r.stderr);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    const chunks = lines.map((l) => JSON.parse(l) as Chunk);
    checkChunks(chunks, 400, (s) => s.length);
    assert.deepEqual([...new Set(chunks.flatMap((c) => c.pages))].sort(), [1, 2], 'both pages');
    assert.ok(chunks.some((c) => c.headings.length > 0));
    const bad = spawnSync(
      process.execPath,
      [join(repoRoot(), 'dist', 'cli.js'), 'convert', 'x.pdf', '--chunk-unit', 'words'],
      { encoding: 'utf8' },
    );
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--chunk-unit must be chars or tokens/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
