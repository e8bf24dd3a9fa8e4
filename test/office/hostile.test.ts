/**
 * Hostile Office and HTML files through `folio convert` (dist/cli.js): each is refused with a
 * clear error naming the file, a non-zero exit, and nothing written. The files are real documents
 * (LibreOffice's report, eval/office/made/) with one part made hostile, except the encrypted one:
 * LibreOffice 7.4 headless ignores a password on OOXML export (tried: filter options and a Basic
 * macro's `storeToURL` both wrote a plain zip), so `fakeEncryptedOoxml` (test/helpers/hostileOffice.ts)
 * writes the OLE compound file that Office's encryption produces (header signature and an
 * `EncryptionInfo` stream entry), which is all Folio reads before refusing it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { unzipSync, zipSync } from 'fflate';
import { repoRoot } from '../helpers/corpus';
import { fakeEncryptedOoxml, withPart as withReportPart } from '../helpers/hostileOffice';
import { DEFAULT_LIMITS } from '../../server/worker/limits';
import { DEFAULT_MAX_CELLS } from '../../server/office/xlsx';

let dir: string;
const cli = () => join(repoRoot(), 'dist', 'cli.js');
const report = () => join(repoRoot(), 'eval', 'office', 'made', 'report.docx');

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'folio-office-hostile-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Converts `file` into a fresh output folder; answers the run and what the folder holds afterwards. */
function convert(file: string): { status: number | null; stderr: string; written: string[] } {
  const out = mkdtempSync(join(dir, 'out-'));
  const r = spawnSync(process.execPath, [cli(), 'convert', file, '-o', out + '/', '--format', 'chunks'], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, stderr: r.stderr, written: existsSync(out) ? readdirSync(out) : [] };
}

/** The LibreOffice report with one part replaced (or added). */
function withPart(name: string, part: string, data: Uint8Array | string): string {
  return withReportPart(report(), join(dir, name), part, data);
}

test('an encrypted Office file is named as encrypted, exit 2, nothing written', () => {
  const file = join(dir, 'secret.docx');
  fakeEncryptedOoxml(file);
  const r = convert(file);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /secret\.docx is an encrypted \(password-protected\) Office file/);
  assert.match(r.stderr, /unprotected copy/);
  assert.deepEqual(r.written, []);
});

test('a legacy Word 97 file (LibreOffice-made) saved as .docx is named as a binary Office file', () => {
  const file = join(dir, 'old.docx');
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'office', 'legacy-report.doc'), file);
  const r = convert(file);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /old\.docx is a legacy binary Office file/);
  assert.deepEqual(r.written, []);
});

test('a zip bomb part (50 MB that deflates over 1000×) is refused before it is inflated', () => {
  const file = withPart('bomb.docx', 'word/document.xml', new Uint8Array(50 * 1024 * 1024).fill(0x20));
  const r = convert(file);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /bomb\.docx was refused before inflating: part word\/document\.xml inflates \d+×/);
  assert.deepEqual(r.written, []);
});

test('a part that declares a 2 GB size is refused from the central directory alone', () => {
  const bytes = readFileSync(report());
  // Patch the declared uncompressed size of every central-directory entry (signature PK\1\2).
  for (let i = 0; i + 46 < bytes.length; i++)
    if (bytes.readUInt32LE(i) === 0x02014b50) bytes.writeUInt32LE(0x7fffffff, i + 24);
  const file = join(dir, 'liar.docx');
  writeFileSync(file, bytes);
  const r = convert(file);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /liar\.docx was refused before inflating: part .+ inflates to 2147483647 bytes/);
  assert.deepEqual(r.written, []);
});

test('an external entity (XXE) and a DTD are refused; the file they name is never read', () => {
  const doc = unzipSync(readFileSync(report()))['word/document.xml'];
  const xml = new TextDecoder().decode(doc);
  const hostile = xml.replace(
    /<w:document/,
    '<!DOCTYPE w:document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><w:document',
  );
  const file = withPart('xxe.docx', 'word/document.xml', hostile.replace('Quarterly Field Report', '&xxe;'));
  const r = convert(file);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /xxe\.docx: part word\/document\.xml was refused: it declares a DOCTYPE/);
  assert.doesNotMatch(r.stderr, /root:/);
  assert.deepEqual(r.written, []);
  const laughs = withPart(
    'laughs.docx',
    'word/styles.xml',
    '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><l>&b;</l>',
  );
  const r2 = convert(laughs);
  assert.notEqual(r2.status, 0);
  assert.match(r2.stderr, /laughs\.docx: part word\/styles\.xml was refused: it declares a DOCTYPE/);
  assert.deepEqual(r2.written, []);
});

/** A real workbook (Docling's xlsx_01) whose first sheet is `rows` × `cols` numbered cells. */
function bigSheet(name: string, rows: number, cols: number): string {
  const xlsx = join(repoRoot(), 'eval', 'office', 'docling', 'xlsx', 'sources', 'xlsx_01.xlsx');
  const files = unzipSync(readFileSync(xlsx));
  const colName = (c: number) => {
    let s = '';
    for (let n = c + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
    return s;
  };
  const names = Array.from({ length: cols }, (_, c) => colName(c));
  const xmlRows: string[] = [];
  for (let r = 1; r <= rows; r++)
    xmlRows.push(`<row r="${r}">${names.map((n, c) => `<c r="${n}${r}"><v>${r * 1000 + c}</v></c>`).join('')}</row>`);
  files['xl/worksheets/sheet1.xml'] = new TextEncoder().encode(
    `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${xmlRows.join('')}</sheetData></worksheet>`,
  );
  const file = join(dir, name);
  writeFileSync(file, zipSync(files, { level: 6 }));
  return file;
}

function convertMd(file: string, extra: string[]): { status: number | null; stderr: string; md: string } {
  const out = mkdtempSync(join(dir, 'out-'));
  const md = join(out, 'out.md');
  const r = spawnSync(process.execPath, [cli(), 'convert', file, '-o', md, ...extra], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, stderr: r.stderr, md: existsSync(md) ? readFileSync(md, 'utf8') : '' };
}

// The cell limit (ConvertLimits.maxCells, `--max-cells`, folio.limits.maxCells): a sheet past it is
// read up to it with a warning, not refused. Tested with a small limit so it runs in seconds; the
// default (1,000,000) is checked where it is declared and against a sheet under it.
test('a huge sheet is read up to --max-cells with a warning, not refused; the cells read are converted', () => {
  const file = bigSheet('huge.xlsx', 60, 50); // 3,000 cells
  const r = convertMd(file, ['--max-cells', '1000']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /huge\.xlsx: the workbook has more than 1000 filled cells: only the first 1000 were read/);
  assert.match(r.md, /\| 1000 \| 1001 \|/, 'the first row is converted');
  assert.match(r.md, /\| 20049 \|/, 'the 1,000th cell (row 20, last column) is converted');
  assert.doesNotMatch(r.md, /\b21000\b/, 'nothing past the limit');
  // CSV takes the same limit.
  const csv = join(dir, 'wide.csv');
  writeFileSync(csv, Array.from({ length: 10 }, (_, r) => `a${r},b${r},c${r}`).join('\n') + '\n');
  const c = convertMd(csv, ['--max-cells', '12']);
  assert.equal(c.status, 0, c.stderr);
  assert.match(c.stderr, /wide\.csv: more than 12 cells: the rows after the first 4 were left out/);
  assert.doesNotMatch(c.md, /a5/);
});

test('the default cell limit is 1,000,000 everywhere: a 3,000-cell sheet is read whole, a bad limit is refused', () => {
  assert.equal(DEFAULT_LIMITS.maxCells, 1_000_000);
  assert.equal(DEFAULT_MAX_CELLS, DEFAULT_LIMITS.maxCells, "the reader's own default is the limits table's");
  const help = spawnSync(process.execPath, [cli(), 'convert', '--help'], { encoding: 'utf8' });
  assert.match(help.stdout, /--max-cells <n> +most cells read of each workbook or CSV \(default 1000000/);
  const file = bigSheet('big.xlsx', 60, 50);
  const r = convertMd(file, []);
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /filled cells/);
  assert.match(r.md, /\| 60049 \|/, 'the last cell is converted');
  const bad = convertMd(file, ['--max-cells', '0']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--max-cells must be a whole number from 1 to 100000000, not 0/);
});

let server: Server;
let hits = 0;
before(async () => {
  server = createServer((_q, s) => {
    hits++;
    s.end('x');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
after(() => server.close());

test('HTML: scripts never run, styles are not text, remote pictures and frames are never fetched', () => {
  const port = (server.address() as { port: number }).port;
  const marker = join(dir, 'script-ran');
  const file = join(dir, 'page.html');
  writeFileSync(
    file,
    `<html><head><style>body{background:url(http://127.0.0.1:${port}/bg.png)}</style>
<script>require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')</script>
<link rel="stylesheet" href="http://127.0.0.1:${port}/s.css"></head>
<body><h1>Visible title</h1><p>Body text <img src="http://127.0.0.1:${port}/pic.png" alt="A remote picture"></p>
<iframe src="http://127.0.0.1:${port}/frame"></iframe><script>fetch('http://127.0.0.1:${port}/f')</script>
<p onclick="alert(1)">Last line</p></body></html>`,
  );
  const out = mkdtempSync(join(dir, 'out-'));
  const r = spawnSync(process.execPath, [cli(), 'convert', file, '-o', join(out, 'page.md')], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(r.status, 0, r.stderr);
  const md = readFileSync(join(out, 'page.md'), 'utf8');
  assert.match(md, /^# Visible title/m);
  assert.match(md, /Last line/);
  assert.doesNotMatch(md, /writeFileSync|background|fetch/);
  assert.equal(existsSync(marker), false, 'the script did not run');
  assert.equal(hits, 0, 'nothing was fetched from the page');
  assert.match(r.stderr, /were not fetched/);
});
