/**
 * `folio convert` of each structured format (issue 41's "done when"): a LibreOffice DOCX and
 * Docling's PPTX, XLSX, HTML, CSV and Markdown test files each write Markdown, DocTags, a
 * DoclingDocument valid against docling-core 2.87.1's schema (and the published 1.3.0/1.10.0
 * ones), and chunks valid against its DocChunk schema — the same outputs a PDF gets.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { repoRoot } from '../helpers/corpus';
import { docChunkErrors, doclingDocumentErrors } from '../export/doclingSchema';

let dir: string;
const cli = () => join(repoRoot(), 'dist', 'cli.js');
const docling = (fmt: string, name: string) => join(repoRoot(), 'eval', 'office', 'docling', fmt, 'sources', name);

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'folio-office-cli-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const INPUTS: [string, string, RegExp][] = [
  [join(repoRoot(), 'eval', 'office', 'made', 'report.docx'), 'report', /^## Quarterly Field Report$/m],
  [docling('pptx', 'powerpoint_sample.pptx'), 'powerpoint_sample', /^# Second slide title$/m],
  [docling('xlsx', 'xlsx_01.xlsx'), 'xlsx_01', /^## Sheet1$/m],
  [docling('html', 'example_01.html'), 'example_01', /^# Introduction$/m],
  [docling('csv', 'csv-comma.csv'), 'csv-comma', /^\| .+ \|$/m],
  [docling('md', 'mixed.md'), 'mixed.md', /^#+ /m],
];

function run(...args: string[]) {
  return spawnSync(process.execPath, [cli(), 'convert', ...args], { encoding: 'utf8', timeout: 180_000 });
}

test('each format converts to Markdown and DocTags in one batch', () => {
  const out = join(dir, 'md');
  const r = run(...INPUTS.map((i) => i[0]), '-o', out + '/');
  assert.equal(r.status, 0, r.stderr);
  for (const [, stem, heading] of INPUTS) {
    const md = readFileSync(join(out, `${stem}.md`), 'utf8');
    assert.match(md, heading, `${stem}.md`);
  }
  const tags = join(dir, 'tags');
  const t = run(...INPUTS.map((i) => i[0]), '-o', tags + '/', '--format', 'doctags');
  assert.equal(t.status, 0, t.stderr);
  const pptx = readFileSync(join(tags, 'powerpoint_sample.doctags.txt'), 'utf8');
  assert.equal(pptx.split('<page_break>').length, 3, 'a slide a page');
  assert.match(pptx, /<otsl>.*<lcel>/s, 'the merged table as OTSL');
  assert.match(readFileSync(join(tags, 'report.doctags.txt'), 'utf8'), /<ordered_list>/);
});

test('each format writes a DoclingDocument valid against docling-core 2.87.1, and valid chunks', () => {
  const out = join(dir, 'docling');
  const r = run(...INPUTS.map((i) => i[0]), '-o', out + '/', '--format', 'docling');
  assert.equal(r.status, 0, r.stderr);
  for (const [, stem] of INPUTS) {
    const doc = JSON.parse(readFileSync(join(out, `${stem}.docling.json`), 'utf8'));
    assert.deepEqual(doclingDocumentErrors(doc), [], `${stem}.docling.json`);
    assert.ok(doc.texts.length + doc.tables.length > 0, `${stem}: items`);
  }
  const report = JSON.parse(readFileSync(join(out, 'report.docling.json'), 'utf8'));
  assert.ok(report.groups.some((g: { label: string }) => g.label === 'list'));
  assert.ok(
    report.tables[0].data.table_cells.some((c: { col_span: number }) => c.col_span === 2),
    'the colspan',
  );

  const chunks = join(dir, 'chunks');
  const c = run(...INPUTS.map((i) => i[0]), '-o', chunks + '/', '--format', 'chunks');
  assert.equal(c.status, 0, c.stderr);
  const files = readdirSync(chunks).filter((f) => f.endsWith('.chunks.jsonl'));
  assert.equal(files.length, INPUTS.length, files.join(', '));
  for (const f of files) {
    const lines = readFileSync(join(chunks, f), 'utf8').trim().split('\n');
    assert.ok(lines.length > 0 && lines[0].length > 0, f);
    for (const line of lines) assert.deepEqual(docChunkErrors(JSON.parse(line)), [], f);
  }
});

test('pictures of a DOCX are written beside the Markdown and linked', () => {
  const out = join(dir, 'pics');
  const r = run(docling('docx', 'word_sample.docx'), '-o', join(out, 'word_sample.md'));
  assert.equal(r.status, 0, r.stderr);
  const md = readFileSync(join(out, 'word_sample.md'), 'utf8');
  const link = /!\[[^\]]*\]\(([^)]+)\)/.exec(md)?.[1];
  assert.ok(link, md.slice(0, 500));
  assert.ok(existsSync(join(out, decodeURIComponent(link))), link);
});
