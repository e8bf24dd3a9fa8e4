/**
 * `folio mcp` on documents born structured (issue 41), through the MCP SDK's own client and a
 * real `dist/cli.js mcp` child process: `list_pdfs` offers the Word, PowerPoint, Excel, HTML and
 * CSV files (not Markdown: a folder holds Folio's own outputs), `convert_pdf` converts each to the
 * Markdown the CLI writes, takes slides and sheets as pages, answers DoclingDocument JSON and
 * DocChunk lines, refuses hostile and unknown files with a message naming the file, keeps to the
 * allowed folder, and `--max-cells` cuts a workbook with the warning in the result.
 * The inputs are real producer files: LibreOffice's report (eval/office/made/) and Docling's own
 * test documents (eval/office/docling/).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { repoRoot } from '../helpers/corpus';
import { unzipSync, zipSync } from 'fflate';
import { fakeEncryptedOoxml, xxeDocx } from '../helpers/hostileOffice';
import { docChunkLinesErrors, doclingDocumentErrors } from '../export/doclingSchema';

let dir: string;
let allowed: string;
const clients: Client[] = [];

const made = (f: string) => join(repoRoot(), 'eval', 'office', 'made', f);
const docling = (format: string, f: string) => join(repoRoot(), 'eval', 'office', 'docling', format, 'sources', f);
const cli = () => join(repoRoot(), 'dist', 'cli.js');

async function server(...extra: string[]): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli(), 'mcp', allowed, ...extra],
    stderr: 'pipe',
  });
  const client = new Client({ name: 'folio-office-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

let client: Client;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'folio-mcp-office-'));
  allowed = join(dir, 'docs');
  mkdirSync(join(allowed, 'deck'), { recursive: true });
  copyFileSync(made('report.docx'), join(allowed, 'report.docx'));
  copyFileSync(made('report.html'), join(allowed, 'report.html'));
  copyFileSync(docling('pptx', 'powerpoint_sample.pptx'), join(allowed, 'deck', 'slides.pptx'));
  copyFileSync(docling('xlsx', 'xlsx_01.xlsx'), join(allowed, 'book.xlsx'));
  copyFileSync(docling('csv', 'csv-comma.csv'), join(allowed, 'table.csv'));
  copyFileSync(docling('md', 'mixed.md'), join(allowed, 'notes.md')); // converted when named, never listed
  writeFileSync(join(allowed, 'report.md'), '# an output of an earlier conversion\n');
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'office', 'legacy-report.doc'), join(allowed, 'old.doc'));
  fakeEncryptedOoxml(join(allowed, 'secret.docx'));
  xxeDocx(made('report.docx'), join(allowed, 'xxe.docx'));
  writeFileSync(join(allowed, 'plain.xlsx'), 'this is not a workbook');
  copyFileSync(made('report.docx'), join(dir, 'outside.docx'));
  client = await server();
});

after(async () => {
  for (const c of clients) await c.close();
  rmSync(dir, { recursive: true, force: true });
});

const SLOW = { timeout: 300_000, resetTimeoutOnProgress: true };
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
const first = (r: CallToolResult) => (r.content[0]?.type === 'text' ? r.content[0].text : '');
const call = async (
  c: Client,
  args: Record<string, unknown>,
  onprogress?: (p: { progress: number; total?: number }) => void,
) => (await c.callTool({ name: 'convert_pdf', arguments: args }, undefined, { ...SLOW, onprogress })) as CallToolResult;

test('the tools say which formats they take; list_pdfs offers the Office/HTML/CSV files, not Markdown', async () => {
  const { tools } = await client.listTools();
  const convert = tools.find((t) => t.name === 'convert_pdf')!;
  assert.match(convert.description ?? '', /Word, PowerPoint, Excel, HTML, Markdown or CSV/);
  assert.match(convert.description ?? '', /\.docx, \.pptx, \.xlsx, \.html, \.htm, \.md, \.csv/);
  const path = (convert.inputSchema.properties as Record<string, { description?: string }>).path;
  assert.match(path?.description ?? '', /\.docx, \.pptx, \.xlsx/);
  const list = tools.find((t) => t.name === 'list_pdfs')!;
  assert.match(list.description ?? '', /Word, PowerPoint and Excel files/);

  const listed = text((await client.callTool({ name: 'list_pdfs', arguments: {} })) as CallToolResult).split('\n');
  const real = realpathSync(allowed);
  assert.deepEqual(
    listed,
    [
      'book.xlsx',
      'deck/slides.pptx',
      'plain.xlsx',
      'report.docx',
      'report.html',
      'secret.docx',
      'table.csv',
      'xxe.docx',
    ].map((n) => join(real, n)),
    'every kind convert_pdf reads by its extension; no .md (outputs), no .doc, nothing outside',
  );
});

test('convert_pdf on a .docx returns the Markdown `folio convert` writes: headings, list, merged table', async () => {
  const progress: { progress: number; total?: number }[] = [];
  const r = await call(client, { path: 'report.docx' }, (p) => progress.push(p));
  assert.ok(!r.isError, text(r));
  const md = first(r);
  // LibreOffice wrote the HTML's h1 as "Heading 1": a section header, as Docling reads it.
  assert.match(md, /^## Quarterly Field Report$/m);
  assert.match(md, /^### Methods$/m);
  assert.match(md, /^ {4}1\. Record every bird seen\.$/m, 'the nested numbered list');
  assert.match(md, /<td rowspan="2">South reed bed<\/td>/, 'the merged cell');
  const out = join(dir, 'cli-report.md');
  const cliRun = spawnSync(process.execPath, [cli(), 'convert', join(allowed, 'report.docx'), '-o', out, '-q'], {
    encoding: 'utf8',
  });
  assert.equal(cliRun.status, 0, cliRun.stderr);
  // The CLI links pictures into report.assets/; MCP answers text, with placeholders.
  assert.equal(md, readFileSync(out, 'utf8').replace(/!\[[^\]]*\]\([^)]*\)/g, '<!-- image -->'));
  // Progress went out for the one page (the last one may follow the result and be dropped).
  assert.ok(progress.every((p) => p.total === 1));
});

test('a .pptx: slides are pages ("pages" picks them); an .xlsx as DoclingDocument, a .csv as DocChunks', async () => {
  const all = first(await call(client, { path: 'deck/slides.pptx' }));
  assert.match(all, /^# Test Table Slide$/m);
  assert.match(all, /^# Second slide title$/m);
  const second = await call(client, { path: 'deck/slides.pptx', pages: '2' });
  assert.ok(!second.isError, text(second));
  assert.match(first(second), /^# Second slide title$/m);
  assert.match(first(second), /^- With foo$/m);
  assert.doesNotMatch(first(second), /Test Table Slide/, 'slide 1 left out');
  const none = await call(client, { path: 'deck/slides.pptx', pages: '9' });
  assert.equal(none.isError, true);
  assert.match(text(none), /slides\.pptx: page selection "9" selects no page of 3/);

  const json = await call(client, { path: 'book.xlsx', format: 'docling' });
  assert.ok(!json.isError, text(json));
  const doc = JSON.parse(first(json)) as {
    origin: { filename: string };
    tables: { data: { table_cells: { text: string }[] } }[];
    texts: { label: string; text: string }[];
  };
  assert.deepEqual(doclingDocumentErrors(doc), [], 'a valid DoclingDocument');
  assert.equal(doc.origin.filename, 'book.xlsx');
  assert.ok(
    doc.texts.some((t) => t.label === 'section_header' && t.text === 'Sheet1'),
    'sheet names as headings',
  );
  assert.ok(doc.tables.length >= 2, `a table per sheet block (${doc.tables.length})`);
  assert.ok(doc.tables[0]!.data.table_cells.some((c) => c.text === 'first'));

  const chunks = await call(client, { path: 'table.csv', format: 'chunks' });
  assert.ok(!chunks.isError, text(chunks));
  assert.deepEqual(docChunkLinesErrors(first(chunks)), [], 'valid DocChunk lines');
  const md = await call(client, { path: 'notes.md' });
  assert.ok(!md.isError, 'a .md named by path is converted (only the listing leaves Markdown out)');
  const html = await call(client, { path: 'report.html' });
  assert.match(first(html), /^# Quarterly Field Report$/m);
});

test('hostile and unknown files: each refused with its name and what to do; the server keeps serving', async () => {
  let r = await call(client, { path: 'secret.docx' });
  assert.equal(r.isError, true);
  assert.match(text(r), /secret\.docx is an encrypted \(password-protected\) Office file.*unprotected copy/);
  r = await call(client, { path: 'xxe.docx' });
  assert.equal(r.isError, true);
  assert.match(text(r), /xxe\.docx: part word\/document\.xml was refused: it declares a DOCTYPE/);
  assert.doesNotMatch(text(r), /root:/);
  r = await call(client, { path: 'plain.xlsx' });
  assert.equal(r.isError, true);
  assert.match(text(r), /plain\.xlsx/);
  assert.equal(r._meta?.['folio/errorKind'], 'damaged');
  r = await call(client, { path: 'old.doc' });
  assert.equal(r.isError, true);
  assert.match(text(r), /old\.doc is not a PDF or a document Folio converts: give .*\.docx/);
  r = await call(client, { path: join(dir, 'outside.docx') });
  assert.equal(r.isError, true);
  assert.match(text(r), /outside\.docx is outside the folders this server may read/);
  r = await call(client, { path: '../outside.docx' });
  assert.match(text(r), /outside the folders/);
  r = await call(client, { path: 'missing.pptx' });
  assert.match(text(r), /missing\.pptx was not found/);
  assert.ok(!(await call(client, { path: 'report.docx' })).isError, 'still serving');
});

test('folio mcp --max-cells cuts a workbook and says so in the result', async () => {
  // Sheet1's 21 cells fit; Sheet2 is cut after 4 of its cells, and the sheets after it are left out.
  const small = await server('--max-cells', '25');
  const r = await call(small, { path: 'book.xlsx' });
  assert.ok(!r.isError, text(r));
  assert.equal(r.content.length, 2, 'the text, then the notes');
  assert.match(text(r), /warning: the workbook has more than 25 filled cells: only the first 25 were read/);
  assert.match(first(r), /\| first \| second \| third \|/);
  assert.match(first(r), /\| 6 \| 0 \| -6 \|/, "Sheet1's last row");
  // (a chart's own cached series may still show Sheet2's numbers: charts are read from their part, not from cells)
  assert.doesNotMatch(first(r), /Sheet3/, 'sheets after the limit are left out');
  const bad = spawnSync(process.execPath, [cli(), 'mcp', allowed, '--max-cells', 'lots'], {
    encoding: 'utf8',
    input: '',
  });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--max-cells must be a whole number/);
});

/** Docling's xlsx_01 with a first sheet of `rows` × `cols` numbers (a workbook that takes seconds to read). */
function bigWorkbook(file: string, rows: number, cols: number): void {
  const files = unzipSync(readFileSync(docling('xlsx', 'xlsx_01.xlsx')));
  const col = (c: number) => {
    let s = '';
    for (let n = c + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
    return s;
  };
  const names = Array.from({ length: cols }, (_, c) => col(c));
  const xml: string[] = [];
  for (let r = 1; r <= rows; r++)
    xml.push(`<row r="${r}">${names.map((n) => `<c r="${n}${r}"><v>${r}</v></c>`).join('')}</row>`);
  files['xl/worksheets/sheet1.xml'] = new TextEncoder().encode(
    `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${xml.join('')}</sheetData></worksheet>`,
  );
  writeFileSync(file, zipSync(files, { level: 6 }));
}

test("a workbook that takes long to read is read off the server's thread: other calls are answered meanwhile, the time budget stops it", async () => {
  bigWorkbook(join(allowed, 'huge.xlsx'), 400, 1000); // 400,000 cells: seconds to parse
  const budget = await server('--max-document-seconds', '2');
  let convertDone = 0;
  const converting = call(budget, { path: 'huge.xlsx' }).then((r) => {
    convertDone = Date.now();
    return r;
  });
  // Asked after the conversion started: answered while it is still reading (before: the read held the loop).
  const listed = (await budget.callTool({ name: 'list_pdfs', arguments: {} })) as CallToolResult;
  const listedAt = Date.now();
  assert.match(text(listed), /huge\.xlsx/);
  const r = await converting;
  assert.ok(convertDone === 0 || listedAt <= convertDone, 'list_pdfs was answered before the conversion ended');
  assert.equal(r.isError, true, text(r));
  assert.match(
    text(r),
    /huge\.xlsx: the document's time budget of 2 s ran out while huge\.xlsx was read: nothing was converted/,
  );
  assert.equal(r._meta?.['folio/errorKind'], 'timeout');
  assert.ok(!(await call(budget, { path: 'book.xlsx' })).isError, 'still serving');
});
