/**
 * `--format docling`: the DoclingDocument export checked against docling-core's published JSON
 * schemas (1.3.0 and 1.10.0) and the @docling/docling-core types, OTSL ⇄ cells with spans, the
 * round trip DocTags → DoclingDocument → Markdown = Folio's Markdown (on docling's own DocTags
 * from the shared corpus and on real conversions), and boxes against docling's ground truth.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { isDocling, iterateDocumentItems, type DoclingDocument } from '@docling/docling-core';
import { parseDocTags } from '../../server/doctags/parse';
import { serializePage } from '../../server/doctags/serialize';
import { pageToMarkdown } from '../../server/doctags/markdown';
import { fromGrid, type OtslCell } from '../../server/model/items';
import type { ConvertSummary } from '../../common/protocol';
import { toDoclingDocument } from '../../server/export/docling';
import { doclingToMarkdown, doclingToPages } from '../../server/export/fromDocling';
import { otslToTableData, tableDataToOtsl } from '../../server/export/doclingTable';
import { pagesToMarkdown } from '../../server/export/images';
import { renderExport } from '../../server/export';
import type { ExportPage } from '../../server/export/pages';
import { corpusPath, repoRoot } from '../helpers/corpus';
import { doclingDocumentErrors } from './doclingSchema';

function assertValid(doc: unknown, what: string): void {
  assert.deepEqual(doclingDocumentErrors(doc), [], `${what}: valid against docling-core's DoclingDocument schemas`);
  assert.ok(isDocling.Document(doc as object), `${what}: @docling/docling-core's isDocling.Document accepts it`);
}

/** Pages of docling's own DocTags (shared corpus), sized from docling's JSON of the same file. */
function corpusPages(stem: string): ExportPage[] {
  const doctags = readFileSync(corpusPath(`docling/${stem}.doctags.txt`), 'utf8');
  const gt = JSON.parse(readFileSync(corpusPath(`docling/${stem}.json`), 'utf8')) as DoclingDocument;
  return parseDocTags(doctags).map((p, i) => {
    const size = gt.pages?.[String(i + 1)]?.size ?? { width: 612, height: 792 };
    const width = size.width ?? 612;
    const height = size.height ?? 792;
    return {
      page: i + 1,
      width,
      height,
      items: p.items.map((it) => ({ ...it, bbox: it.grid ? fromGrid(it.grid, { width, height }) : undefined })),
    };
  });
}

const CORPUS = [
  'pdf/2305.03393v1-pg9',
  'pdf/amt_handbook_sample',
  'pdf/code_and_formula',
  'pdf/multi_page',
  'pdf/normal_4pages',
  'pdf/picture_classification',
  'pdf/redp5110_sampled',
  'pdf/right_to_left_01',
  'pdf/table_mislabeled_as_picture',
  'gt_without_pdf/2203.01017v2',
  'gt_without_pdf/2206.01062',
  'gt_without_pdf/2305.03393v1',
];

test('docling DocTags of 12 corpus documents: schema-valid DoclingDocuments whose Markdown equals Folio Markdown of the same DocTags', () => {
  let tables = 0;
  let lists = 0;
  let pictures = 0;
  for (const stem of CORPUS) {
    const pages = corpusPages(stem);
    const doc = toDoclingDocument(pages, { name: stem });
    const json = JSON.parse(JSON.stringify(doc)) as DoclingDocument;
    assertValid(json, stem);
    for (const keep of [false, true]) {
      assert.equal(
        doclingToMarkdown(json, { keepFurniture: keep }),
        pagesToMarkdown(pages, keep),
        `${stem}: round trip (keepFurniture ${keep})`,
      );
    }
    // Every item is reachable from the body exactly once (the types' own iterator agrees).
    const seen = new Set<string>();
    for (const [node] of iterateDocumentItems(json, { withGroups: true, traversePictures: true })) {
      assert.ok(!seen.has(node.self_ref), `${stem}: ${node.self_ref} once`);
      seen.add(node.self_ref);
    }
    const all = [...(json.texts ?? []), ...(json.tables ?? []), ...(json.pictures ?? []), ...(json.groups ?? [])];
    for (const it of all) assert.ok(seen.has(it.self_ref), `${stem}: ${it.self_ref} is in the body tree`);
    tables += json.tables?.filter((t) => t.label === 'table').length ?? 0;
    lists += json.groups?.filter((g) => g.label === 'list').length ?? 0;
    pictures += json.pictures?.length ?? 0;
  }
  assert.ok(
    tables >= 5 && lists >= 5 && pictures >= 5,
    `the set exercises tables (${tables}), lists (${lists}) and pictures (${pictures})`,
  );
});

test('OTSL → table cells: spans from lcel/ucel/xcel, headers, dense grid; and back to the same OTSL', () => {
  const c = (tag: OtslCell['tag'], text = ''): OtslCell => ({ tag, text });
  const rows = [
    [c('ched', 'Name'), c('ched', 'Q1'), c('lcel')],
    [c('rhed', 'A'), c('fcel', '1'), c('fcel', '2')],
    [c('ucel'), c('fcel', '3'), c('ecel')],
    [c('srow', 'Total'), c('fcel', 'x'), c('lcel')],
    [c('fcel', 'B'), c('ucel'), c('xcel')],
  ];
  const data = otslToTableData(rows);
  assert.equal(data.num_rows, 5);
  assert.equal(data.num_cols, 3);
  const q1 = data.table_cells!.find((t) => t.text === 'Q1')!;
  assert.deepEqual([q1.start_col_offset_idx, q1.end_col_offset_idx, q1.col_span, q1.column_header], [1, 3, 2, true]);
  const a = data.table_cells!.find((t) => t.text === 'A')!;
  assert.deepEqual([a.start_row_offset_idx, a.end_row_offset_idx, a.row_span, a.row_header], [1, 3, 2, true]);
  const x = data.table_cells!.find((t) => t.text === 'x')!;
  assert.deepEqual(
    [x.start_row_offset_idx, x.end_row_offset_idx, x.start_col_offset_idx, x.end_col_offset_idx],
    [3, 5, 1, 3],
    '2×2 cell from lcel + ucel + xcel',
  );
  assert.equal(data.table_cells!.find((t) => t.text === 'Total')!.row_section, true);
  assert.equal(data.grid[4]![2], x, 'grid repeats the spanning cell at every position it covers');
  assert.equal(data.grid.flat().length, 15);
  assert.deepEqual(tableDataToOtsl(data), rows);
});

test('real conversions: DoclingDocument = Folio Markdown, table 10×8 (docling: 6×8) and boxes where docling puts them (BOTTOMLEFT), picture files linked', () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-docling-'));
  try {
    for (const name of ['2305.03393v1-pg9', 'picture_classification']) {
      copyFileSync(corpusPath(`docling/pdf/${name}.pdf`), join(dir, `${name}.pdf`));
      const r = spawnSync(
        process.execPath,
        [join(repoRoot(), 'dist', 'cli.js'), 'convert', `${name}.pdf`, '--format', 'json', '-q'],
        { cwd: dir, encoding: 'utf8', timeout: 180_000 },
      );
      assert.equal(r.status, 0, r.stderr);
      const summary = JSON.parse(readFileSync(join(dir, `${name}.folio-result.json`), 'utf8')) as ConvertSummary;
      const out = renderExport({
        format: 'docling',
        pdfPath: join(dir, `${name}.pdf`),
        pages: summary.pages!,
        images: 'link',
        imagesBaseDir: dir,
        keepFurniture: false,
      });
      const doc = JSON.parse(out.text) as DoclingDocument;
      assertValid(doc, name);
      assert.equal(
        doclingToMarkdown(doc),
        summary.markdown,
        `${name}: DocTags → DoclingDocument → Markdown equals the .md`,
      );
      assert.equal(doc.origin?.filename, `${name}.pdf`);
      assert.ok((doc.origin?.binary_hash ?? 0) > 0);
      const gt = JSON.parse(readFileSync(corpusPath(`docling/pdf/${name}.json`), 'utf8')) as DoclingDocument;
      assert.deepEqual(doc.pages?.['1']?.size, gt.pages?.['1']?.size, 'page size as docling reads it');
      const iou = (a: { l: number; t: number; r: number; b: number }, b: typeof a) => {
        const w = Math.max(0, Math.min(a.r, b.r) - Math.max(a.l, b.l));
        const h = Math.max(0, Math.min(a.t, b.t) - Math.max(a.b, b.b));
        const area = (x: typeof a) => (x.r - x.l) * (x.t - x.b);
        return (w * h) / (area(a) + area(b) - w * h);
      };
      if (name === '2305.03393v1-pg9') {
        const t = doc.tables![0]!;
        // docling reads each OTSL/HTML pair of rows as one row; the page shows them as two rows
        // (test/tables/tables.test.ts), so four more rows here.
        assert.equal(t.data.num_rows, gt.tables![0]!.data.num_rows! + 4);
        assert.equal(t.data.num_cols, gt.tables![0]!.data.num_cols);
        const box = t.prov![0]!.bbox;
        assert.equal(box.coord_origin, 'BOTTOMLEFT');
        assert.ok(
          iou(box, gt.tables![0]!.prov![0]!.bbox) > 0.85,
          `table box ${JSON.stringify(box)} overlaps docling's`,
        );
      } else {
        const pic = doc.pictures![0]!;
        assert.ok(iou(pic.prov![0]!.bbox, gt.pictures![0]!.prov![0]!.bbox) > 0.85, 'picture box overlaps docling’s');
        assert.ok(pic.image, 'picture has an image reference');
        const file = join(dir, pic.image!.uri);
        assert.ok(existsSync(file), `${pic.image!.uri} exists`);
        const png = readFileSync(file);
        assert.equal(png.readUInt32BE(16), pic.image!.size.width);
        assert.equal(pic.captions!.length, 1, 'caption linked');
        // The body order per page as the items were read.
        assert.deepEqual([...doclingToPages(doc).keys()], [1, 2]);
      }
    }
    // The CLI writes the same document itself.
    const r = spawnSync(
      process.execPath,
      [join(repoRoot(), 'dist', 'cli.js'), 'convert', 'picture_classification.pdf', '--format', 'docling', '-q'],
      { cwd: dir, encoding: 'utf8', timeout: 180_000 },
    );
    assert.equal(r.status, 0, r.stderr);
    const written = JSON.parse(readFileSync(join(dir, 'picture_classification.docling.json'), 'utf8'));
    assertValid(written, 'CLI output');
    assert.ok(readdirSync(join(dir, 'picture_classification.assets')).length >= 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("list labels: the printed label is docling-core's ListItem.marker, enumerated; read back into the same Markdown", () => {
  const doctags =
    '<doctag><ordered_list><list_item><loc_10><loc_10><loc_90><loc_20>(4) Fourth point</list_item>\n' +
    '<list_item><loc_10><loc_20><loc_90><loc_30>10) Tenth point</list_item>\n' +
    '<list_item><loc_10><loc_30><loc_90><loc_40>212. Prove it</list_item>\n' +
    '<list_item><loc_10><loc_40><loc_90><loc_50>No label</list_item>\n' +
    '</ordered_list>\n<unordered_list><list_item><loc_10><loc_50><loc_90><loc_60>A bullet</list_item>\n</unordered_list></doctag>';
  const pages: ExportPage[] = parseDocTags(doctags).map((p, i) => ({
    page: i + 1,
    width: 612,
    height: 792,
    items: p.items.map((it) => ({ ...it, bbox: it.grid ? fromGrid(it.grid, { width: 612, height: 792 }) : undefined })),
  }));
  const doc = JSON.parse(JSON.stringify(toDoclingDocument(pages, { name: 'labels' }))) as DoclingDocument;
  assertValid(doc, 'labels');
  const items = (doc.texts as unknown as { label: string; text: string; marker: string; enumerated: boolean }[]).filter(
    (t) => t.label === 'list_item',
  );
  assert.deepEqual(
    items.map((t) => [t.marker, t.enumerated, t.text]),
    [
      ['(4)', true, 'Fourth point'],
      ['10)', true, 'Tenth point'],
      ['212.', true, 'Prove it'],
      ['213.', true, 'No label'],
      ['-', false, 'A bullet'],
    ],
  );
  const md = pagesToMarkdown(pages, false);
  assert.match(md, /^- \(4\) Fourth point$/m);
  assert.match(md, /^10\) Tenth point$/m);
  assert.equal(doclingToMarkdown(doc, { keepFurniture: false }), md, 'DoclingDocument → Markdown keeps the labels');
});

test("chart kinds: docling's classification token in DocTags, its classification annotation in the DoclingDocument, its line in Markdown; each read back", () => {
  const doctags =
    '<doctag><chart><loc_10><loc_10><loc_90><loc_60><line_chart><ched>Year<ched>Ducks<nl><rhed>2019<fcel>120<nl>' +
    '<caption><loc_10><loc_62><loc_90><loc_66>Ducks by year</caption></chart></doctag>';
  const parsed = parseDocTags(doctags)[0]!.items;
  assert.equal(parsed[0]!.chartKind, 'line_chart');
  assert.deepEqual(
    parsed[0]!.table?.map((r) => r.map((c) => c.text)),
    [
      ['Year', 'Ducks'],
      ['2019', '120'],
    ],
  );
  // Written back as it came: the class right after the location, before the data.
  assert.ok(serializePage(parsed).includes('<loc_60><line_chart><ched>Year'), serializePage(parsed));
  const md = pageToMarkdown(parsed).markdown;
  assert.match(md, /<!-- image -->\n\nLine chart\n\n\| Year/);
  // The same token outside a chart is the text it reads as.
  assert.equal(
    parseDocTags('<doctag><text><loc_1><loc_1><loc_9><loc_9>a <bar_chart> b</text></doctag>')[0]!.items[0]!.text,
    'a <bar_chart> b',
  );
  const pages: ExportPage[] = [
    {
      page: 1,
      width: 612,
      height: 792,
      items: parsed.map((it) => ({ ...it, bbox: fromGrid(it.grid!, { width: 612, height: 792 }) })),
    },
  ];
  const doc = JSON.parse(JSON.stringify(toDoclingDocument(pages, { name: 'chart' }))) as DoclingDocument;
  assertValid(doc, 'chart');
  const annotations = (doc.pictures?.[0]?.annotations ?? []) as {
    kind: string;
    predicted_classes?: { class_name: string }[];
  }[];
  assert.deepEqual(
    annotations.find((a) => a.kind === 'classification')?.predicted_classes?.map((c) => c.class_name),
    ['line_chart'],
  );
  assert.equal(doclingToPages(doc).get(1)?.[0]?.chartKind, 'line_chart');
  assert.equal(doclingToMarkdown(doc).trimEnd(), md);
});
