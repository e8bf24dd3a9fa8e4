/**
 * `--format chunks` in Docling's shape (docling-core's DocChunk, what LangChain's DoclingLoader
 * and LlamaIndex's DoclingNodeParser read): every line valid against docling-core 2.87.1's
 * DocChunk schema; every `meta.doc_items` entry is an item of the DoclingDocument written beside
 * the chunks with only DocItem's fields (its `self_ref` resolves there, to the same item),
 * headings as the flat chunker's heading paths, origin (file name, hash), page and box in each
 * item's `prov`; on docling's DocTags from the shared corpus and through the CLI on a real PDF.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { DoclingDocument } from '@docling/docling-core';
import { parseDocTags } from '../../server/doctags/parse';
import { fromGrid } from '../../server/model/items';
import { chunkDocument, cl100kCounter, contextualizedChunk } from '../../server/export/chunks';
import {
  baseDocItem,
  doclingChunks,
  resolveRef,
  DOC_META_SCHEMA_NAME,
  type DoclingChunk,
} from '../../server/export/doclingChunks';
import type { ExportPage } from '../../server/export/pages';
import { corpusPath, doclingSchemaPath, repoRoot } from '../helpers/corpus';
import { docChunkErrors, docChunkLinesErrors, doclingDocumentErrors } from './doclingSchema';

/** The fields docling-core's DocItem declares (read from its own schema); a chunk's item may hold no other. */
const DOC_ITEM_FIELDS = Object.keys(
  (
    JSON.parse(readFileSync(doclingSchemaPath('DocChunk.schema.json'), 'utf8')) as {
      $defs: { DocItem: { properties: Record<string, unknown> } };
    }
  ).$defs.DocItem.properties,
);

function corpusPages(stem: string): ExportPage[] {
  const doctags = readFileSync(corpusPath(`docling/${stem}.doctags.txt`), 'utf8');
  return parseDocTags(doctags).map((p, i) => ({
    page: i + 1,
    width: 612,
    height: 792,
    items: p.items.map((it) => ({ ...it, bbox: it.grid ? fromGrid(it.grid, { width: 612, height: 792 }) : undefined })),
  }));
}

/** Every chunk: docling-core's DocMeta fields, each doc item resolving to the same item in `doc`, on pages the item's prov names. */
function checkAgainstDocument(chunks: DoclingChunk[], doc: DoclingDocument): void {
  assert.ok(chunks.length > 0);
  chunks.forEach((c, i) => {
    assert.equal(c.meta.schema_name, DOC_META_SCHEMA_NAME);
    assert.equal(c.meta.version, '1.0.0');
    assert.equal(c.folio.index, i);
    assert.ok(c.text.length > 0);
    assert.deepEqual(docChunkErrors(c), [], `chunk ${i} is a valid docling-core DocChunk`);
    assert.ok(c.meta.doc_items.length >= 1, `chunk ${i}: at least one doc item (DocMeta's min_length)`);
    if (c.meta.headings) assert.ok(c.meta.headings.length >= 1, 'headings left out rather than empty');
    assert.ok(!('captions' in c.meta), 'no deprecated captions (docling-core no longer writes them)');
    const pages = new Set<number>();
    for (const item of c.meta.doc_items) {
      const target = resolveRef(doc, item.self_ref);
      assert.ok(target, `chunk ${i}: ${item.self_ref} resolves in the DoclingDocument`);
      assert.deepEqual(item, baseDocItem(target!), `chunk ${i}: doc item ${item.self_ref} is the document's item`);
      for (const k of Object.keys(item))
        assert.ok(DOC_ITEM_FIELDS.includes(k), `${item.self_ref}: ${k} is a DocItem field`);
      assert.ok(item.prov && item.prov.length > 0, `${item.self_ref} has provenance`);
      for (const p of item.prov!) {
        pages.add(p.page_no);
        assert.equal(p.bbox.coord_origin, 'BOTTOMLEFT');
        assert.ok(p.bbox.t >= p.bbox.b && p.bbox.r >= p.bbox.l, `${item.self_ref}: a box in page coordinates`);
      }
    }
    assert.deepEqual(
      [...pages].sort((a, b) => a - b),
      [...c.folio.pages].sort((a, b) => a - b),
      `chunk ${i}: folio.pages = the items' pages`,
    );
  });
}

test('docling chunks of corpus documents: doc_items resolve in the document, headings and text as the flat chunks', () => {
  for (const stem of [
    'gt_without_pdf/2203.01017v2',
    'pdf/2305.03393v1-pg9',
    'pdf/code_and_formula',
    'pdf/picture_classification',
  ]) {
    const pages = corpusPages(stem);
    const chunk = { maxSize: 300, unit: 'chars' as const };
    const { document, chunks } = doclingChunks(pages, {
      name: 'x',
      origin: { filename: 'x.pdf', mimetype: 'application/pdf', binaryHash: 42 },
      chunk,
    });
    assert.deepEqual(doclingDocumentErrors(document), [], `${stem}: the document is valid`);
    checkAgainstDocument(chunks, document);
    const flat = chunkDocument(pages, chunk);
    assert.deepEqual(
      chunks.map((c) => c.text),
      flat.map((c) => c.text),
      `${stem}: the same cuts as the flat schema`,
    );
    assert.deepEqual(
      chunks.map((c) => c.meta.headings ?? []),
      flat.map((c) => c.headings),
      `${stem}: the same heading paths`,
    );
    for (const c of chunks)
      assert.deepEqual(c.meta.origin, { mimetype: 'application/pdf', binary_hash: 42, filename: 'x.pdf' });
    // The items of a chunk are the ones whose text it holds: its words are their words.
    const wordsOf = (t: string) => t.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    for (const c of chunks) {
      const itemWords = new Set(
        c.meta.doc_items.flatMap((ref) => {
          const it = resolveRef(document, ref.self_ref)!;
          return wordsOf(typeof it.text === 'string' ? it.text : JSON.stringify(it.data ?? ''));
        }),
      );
      const mine = wordsOf(c.text.replace(/<[^>]*>/g, ' '));
      const shared = mine.filter((w) => itemWords.has(w)).length;
      assert.ok(
        shared >= 0.9 * mine.length,
        `chunk ${c.folio.index}: ${shared} of its ${mine.length} words are its items' words`,
      );
    }
    if (stem === 'pdf/2305.03393v1-pg9') {
      const pieces = chunks.filter((c) => c.folio.tableRows);
      assert.ok(pieces.length >= 2, 'a split table');
      for (const p of pieces)
        assert.deepEqual(
          p.meta.doc_items.map((d) => d.label),
          ['table'],
          'each piece of a split table refers to the table',
        );
      const tableRef = pieces[0]!.meta.doc_items[0]!.self_ref;
      assert.ok(
        pieces.every((p) => p.meta.doc_items[0]!.self_ref === tableRef),
        'the same table',
      );
    }
    if (stem === 'pdf/picture_classification') {
      const pic = chunks.find((c) => c.meta.doc_items.some((d) => d.label === 'picture'));
      assert.ok(pic, 'a picture contributes its caption, referring to the picture and its caption item');
      const caption = pic!.meta.doc_items.find((d) => d.label === 'caption');
      assert.ok(caption);
      const captionText = String(resolveRef(document, caption!.self_ref)!.text);
      assert.ok(pic!.text.includes(captionText), 'the caption is in the chunk text');
    }
  }
});

test('tokens: the limit bounds the headings with the text, as HybridChunker counts contextualize()', () => {
  const countTokens = cl100kCounter();
  let headed = 0;
  for (const stem of ['pdf/normal_4pages', 'pdf/multi_page', 'gt_without_pdf/2203.01017v2']) {
    const pages = corpusPages(stem);
    for (const max of [64, 128, 512]) {
      const { chunks } = doclingChunks(pages, { name: 'x', chunk: { maxSize: max, unit: 'tokens', countTokens } });
      for (const c of chunks) {
        const n = countTokens(contextualizedChunk(c.meta.headings ?? [], c.text));
        if (c.meta.headings) headed++;
        // At 512 nothing here is too large alone (a Korean table row is, at 64 and 128).
        if (max === 512) assert.ok(!c.folio.oversize, `${stem} chunk ${c.folio.index} is not over 512 alone`);
        if (!c.folio.oversize)
          assert.ok(n <= max, `${stem} chunk ${c.folio.index}: ${n} contextualized tokens > ${max}`);
        // folio.size is HybridChunker's count (hybrid_chunker.py _count_chunk_tokens counts
        // contextualize(chunk), docling-core b7a4298), not the text's alone (issue 42).
        assert.equal(c.folio.size, n, `${stem} chunk ${c.folio.index}: size with headings`);
      }
    }
  }
  assert.ok(headed > 20, `${headed} chunks with headings checked`);
});

test('chars: folio.size is the length of contextualize() (headings, one per line, then the text)', () => {
  const pages = corpusPages('pdf/multi_page');
  const { chunks } = doclingChunks(pages, { name: 'x', chunk: { maxSize: 400, unit: 'chars' } });
  const headed = chunks.filter((c) => c.meta.headings);
  assert.ok(headed.length > 3, `${headed.length} chunks with headings`);
  for (const c of chunks) assert.equal(c.folio.size, contextualizedChunk(c.meta.headings ?? [], c.text).length);
});

test('CLI --format chunks: Docling chunks with <name>.docling.json beside them; every doc item resolves there; --chunk-schema flat', () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-dlchunks-'));
  try {
    const pdf = join(repoRoot(), 'test', 'fixtures', 'sample.pdf');
    const cli = join(repoRoot(), 'dist', 'cli.js');
    const r = spawnSync(
      process.execPath,
      [cli, 'convert', pdf, '--format', 'chunks', '--chunk-size', '400', '-o', join(dir, 'sample.chunks.jsonl'), '-q'],
      { encoding: 'utf8', timeout: 180_000 },
    );
    assert.equal(r.status, 0, r.stderr);
    const docPath = join(dir, 'sample.docling.json');
    assert.ok(existsSync(docPath), 'sample.docling.json written beside the chunks');
    const doc = JSON.parse(readFileSync(docPath, 'utf8')) as DoclingDocument;
    assert.deepEqual(doclingDocumentErrors(doc), [], 'the document is valid');
    assert.deepEqual(
      docChunkLinesErrors(readFileSync(join(dir, 'sample.chunks.jsonl'), 'utf8')),
      [],
      'valid DocChunks',
    );
    const chunks = readFileSync(join(dir, 'sample.chunks.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as DoclingChunk);
    checkAgainstDocument(chunks, doc);
    let refs = 0;
    for (const c of chunks) refs += c.meta.doc_items.length;
    assert.ok(refs >= chunks.length, `${refs} references checked`);
    const hash = createHash('sha256').update(readFileSync(pdf)).digest().readUIntBE(0, 6);
    for (const c of chunks) {
      assert.equal(c.meta.origin?.filename, 'sample.pdf');
      assert.equal(c.meta.origin?.binary_hash, hash, 'origin hash of the PDF');
      assert.deepEqual(c.meta.origin, doc.origin, 'the document’s origin');
      assert.ok(c.text.length <= 400 || c.folio.oversize);
    }
    assert.deepEqual([...new Set(chunks.flatMap((c) => c.folio.pages))].sort(), [1, 2], 'both pages');
    assert.ok(
      chunks.some((c) => (c.meta.headings ?? []).length > 0),
      'heading paths',
    );
    // The same document as --format docling writes.
    const d2 = spawnSync(
      process.execPath,
      [cli, 'convert', pdf, '--format', 'docling', '-o', join(dir, 'again.docling.json'), '-q'],
      { encoding: 'utf8', timeout: 180_000 },
    );
    assert.equal(d2.status, 0, d2.stderr);
    assert.equal(readFileSync(join(dir, 'again.docling.json'), 'utf8'), readFileSync(docPath, 'utf8'));

    // A .docling.json that folio did not write is not replaced (and then no chunks are written either).
    const guarded = spawnSync(
      process.execPath,
      [cli, 'convert', pdf, '--format', 'chunks', '-o', join(dir, 'mine.chunks.jsonl'), '-q'],
      { encoding: 'utf8', timeout: 180_000 },
    );
    assert.equal(guarded.status, 0, guarded.stderr);
    writeFileSync(join(dir, 'mine.docling.json'), '{"edited": true}\n');
    rmSync(join(dir, 'mine.chunks.jsonl'));
    const refused = spawnSync(
      process.execPath,
      [cli, 'convert', pdf, '--format', 'chunks', '-o', join(dir, 'mine.chunks.jsonl'), '-q'],
      { encoding: 'utf8', timeout: 180_000 },
    );
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /mine\.docling\.json already exists/);
    assert.equal(
      readFileSync(join(dir, 'mine.docling.json'), 'utf8'),
      '{"edited": true}\n',
      'the edited document is kept',
    );
    assert.ok(!existsSync(join(dir, 'mine.chunks.jsonl')), 'no chunks pointing into a document that is not theirs');

    const flat = spawnSync(
      process.execPath,
      [
        cli,
        'convert',
        pdf,
        '--format',
        'chunks',
        '--chunk-schema',
        'flat',
        '-o',
        join(dir, 'flat', 'sample.chunks.jsonl'),
        '-q',
      ],
      { encoding: 'utf8', timeout: 180_000 },
    );
    assert.equal(flat.status, 0, flat.stderr);
    const line = JSON.parse(readFileSync(join(dir, 'flat', 'sample.chunks.jsonl'), 'utf8').split('\n')[0]!) as {
      index: number;
      headings: string[];
      boxes: unknown[];
    };
    assert.equal(line.index, 0);
    assert.ok(Array.isArray(line.headings) && Array.isArray(line.boxes), 'the flat line');
    assert.ok(!existsSync(join(dir, 'flat', 'sample.docling.json')), 'flat chunks need no document');
    const bad = spawnSync(process.execPath, [cli, 'convert', 'x.pdf', '--chunk-schema', 'langchain'], {
      encoding: 'utf8',
    });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--chunk-schema must be docling or flat/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
