/**
 * `folio serve` answers docling-serve's calls for the structured formats (issue 41): a DOCX, a
 * PPTX and an HTML page by upload and by base64 source, `from_formats` by docling-serve's names,
 * and a hostile Office file answered as a failure naming it. The real service, over loopback.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { repoRoot } from '../helpers/corpus';
import { parseServeArgs } from '../../server/serve/serveCommand';
import { UsageError } from '../../server/errors';

let proc: ChildProcess;
let base = '';
const docling = (fmt: string, name: string) => join(repoRoot(), 'eval', 'office', 'docling', fmt, 'sources', name);

before(async () => {
  // --max-cells: the service's cell limit, low enough that the LibreOffice survey (30 cells) passes it.
  proc = spawn(process.execPath, [join(repoRoot(), 'dist', 'cli.js'), 'serve', '--port', '0', '--max-cells', '12'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  base = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const onData = (d: Buffer) => {
      seen += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (m) resolve(m[1]);
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`folio serve exited ${code}: ${seen}`)));
  });
});
after(() => {
  proc.kill();
});

async function upload(path: string, fields: [string, string][] = [], name = basename(path)) {
  const form = new FormData();
  form.append('files', new Blob([readFileSync(path)]), name);
  for (const [k, v] of fields) form.append(k, v);
  const r = await fetch(`${base}/v1/convert/file`, { method: 'POST', body: form });
  return { status: r.status, body: (await r.json()) as Record<string, any> };
}

test('a DOCX upload answers Markdown and a DoclingDocument with the Word mimetype', async () => {
  const r = await upload(join(repoRoot(), 'eval', 'office', 'made', 'report.docx'), [
    ['to_formats', 'md'],
    ['to_formats', 'json'],
  ]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.status, 'success');
  assert.match(r.body.document.md_content, /^## Quarterly Field Report/m);
  assert.equal(
    r.body.document.json_content.origin.mimetype,
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  );
});

test('from_formats takes docling-serve names: pptx accepted when listed, refused with 415 when not', async () => {
  const pptx = docling('pptx', 'powerpoint_sample.pptx');
  const ok = await upload(pptx, [
    ['from_formats', 'pptx'],
    ['from_formats', 'docx'],
  ]);
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.match(ok.body.document.md_content, /^# Second slide title/m);
  const refused = await upload(pptx, [['from_formats', 'pdf']]);
  assert.equal(refused.status, 415);
  assert.match(refused.body.detail, /powerpoint_sample\.pptx is a pptx document/);
});

test('an HTML page as a base64 source converts; a legacy binary file named .docx fails naming it', async () => {
  const html = readFileSync(docling('html', 'example_01.html')).toString('base64');
  const r = await fetch(`${base}/v1/convert/source`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sources: [{ kind: 'file', base64_string: html, filename: 'page.html' }] }),
  });
  const body = (await r.json()) as Record<string, any>;
  assert.equal(r.status, 200, JSON.stringify(body));
  assert.match(body.document.md_content, /^# Introduction/m);
  const bad = await upload(join(repoRoot(), 'test', 'fixtures', 'office', 'legacy-report.doc'), [], 'old.docx');
  assert.equal(bad.body.status, 'failure');
  assert.match(JSON.stringify(bad.body.errors), /old\.docx is a legacy binary Office file/);
});

test('folio serve --max-cells: a workbook is read up to the limit, the rest left out, as convert and mcp do', async () => {
  const r = await upload(join(repoRoot(), 'eval', 'office', 'made', 'survey.xlsx'), [['to_formats', 'md']]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const md: string = r.body.document.md_content;
  // The sheet's one block of 30 cells is past the limit: left out by name, the sheet's heading kept
  // (with the default limit the table is there: test/e2e/office.test.ts converts it whole).
  assert.match(md, /^## Sheet1/m, md);
  assert.doesNotMatch(md, /Mallard/, md);
  assert.match(JSON.stringify(r.body), /past the cell limit of 12/, JSON.stringify(r.body).slice(0, 2000));
});

test('folio serve --max-cells is parsed like the other limits and refused where the workers convert', () => {
  assert.equal(parseServeArgs(['--max-cells', '500'], {}).maxCells, 500);
  assert.equal(parseServeArgs([], {}).maxCells, undefined);
  assert.throws(() => parseServeArgs(['--max-cells', 'lots'], {}), UsageError);
  assert.throws(() => parseServeArgs(['--max-cells', '5', '--redis', 'redis://127.0.0.1:6379'], {}), /--max-cells/);
});
