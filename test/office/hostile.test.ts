/**
 * Hostile Office and HTML files through `folio convert` (dist/cli.js): each is refused with a
 * clear error naming the file, a non-zero exit, and nothing written. The files are real documents
 * (LibreOffice's report, eval/office/made/) with one part made hostile, except the encrypted one:
 * LibreOffice 7.4 headless ignores a password on OOXML export (tried: filter options and a Basic
 * macro's `storeToURL` both wrote a plain zip), so `fakeEncryptedOoxml` writes the OLE compound
 * file that Office's encryption produces (header signature and an `EncryptionInfo` stream entry),
 * which is all Folio reads before refusing it.
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
  const files = unzipSync(readFileSync(report()));
  files[part] = (typeof data === 'string' ? new TextEncoder().encode(data) : data) as Uint8Array<ArrayBuffer>;
  const file = join(dir, name);
  writeFileSync(file, zipSync(files, { level: 9 }));
  return file;
}

function fakeEncryptedOoxml(file: string): void {
  const b = Buffer.alloc(512 * 3);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(b, 0);
  b.writeUInt16LE(0x3e, 24); // minor version
  b.writeUInt16LE(3, 26); // major version 3: 512-byte sectors
  b.writeUInt16LE(0xfffe, 28); // little-endian
  b.writeUInt16LE(9, 30); // sector shift
  b.writeUInt32LE(0, 48); // first directory sector
  // Directory sector (sector 0 after the header): the root entry and "EncryptionInfo".
  const entry = (at: number, name: string, type: number) => {
    Buffer.from(name, 'utf16le').copy(b, at);
    b.writeUInt16LE((name.length + 1) * 2, at + 64);
    b[at + 66] = type;
  };
  entry(512, 'Root Entry', 5);
  entry(512 + 128, 'EncryptionInfo', 2);
  entry(512 + 256, 'EncryptedPackage', 2);
  writeFileSync(file, b);
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

test('a huge sheet is read up to the cell limit with a warning, not refused', () => {
  // 1,100 rows × 1,000 columns of inline numbers: past the 1,000,000-cell limit.
  const xlsx = join(repoRoot(), 'eval', 'office', 'docling', 'xlsx', 'sources', 'xlsx_01.xlsx');
  const files = unzipSync(readFileSync(xlsx));
  const cols = 1000;
  const colName = (c: number) => {
    let s = '';
    for (let n = c + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
    return s;
  };
  const names = Array.from({ length: cols }, (_, c) => colName(c));
  const rows: string[] = [];
  for (let r = 1; r <= 1100; r++)
    rows.push(`<row r="${r}">${names.map((n) => `<c r="${n}${r}"><v>${r}</v></c>`).join('')}</row>`);
  files['xl/worksheets/sheet1.xml'] = new TextEncoder().encode(
    `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows.join('')}</sheetData></worksheet>`,
  );
  const file = join(dir, 'huge.xlsx');
  writeFileSync(file, zipSync(files, { level: 6 }));
  const out = mkdtempSync(join(dir, 'out-'));
  const r = spawnSync(
    process.execPath,
    [cli(), 'convert', file, '-o', join(out, 'huge.md'), '--max-document-seconds', '600'],
    {
      encoding: 'utf8',
      timeout: 300_000,
    },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /huge\.xlsx: the workbook has more than 1000000 filled cells/);
  assert.ok(existsSync(join(out, 'huge.md')));
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
