/**
 * Issue 21 item 8: a page-count cap in the CLI (`--max-pages`), the extension's backend
 * (`folio.limits.maxPages`, sent as `ConvertParams.limits.maxPages`) and MCP (`folio mcp --max-pages`),
 * checked before any page is enumerated. The reproduction is a 1.4 KB PDF whose page tree
 * declares 1,000,000 pages (six levels of ten kids, all one page object: every page is real to
 * pdf.js). Before the fix the CLI converted it page after page, its memory growing (~15 MB/s
 * here), for the whole default time budget of an hour.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliPath, runCli } from './issue21Cli';
import { repoRoot } from '../helpers/corpus';
import { BackendProcess } from '../helpers/backend';
import { FolioErrorCodes } from '../../common/protocol';
import { countPageSelection } from '../../server/convert/pageSelection';
import { pageTreePdf } from '../helpers/pageTreePdf';

let dir: string;
let million: string;
const env = () => ({ FOLIO_CACHE_DIR: join(dir, 'cache') });

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'folio-sec-pages-'));
  mkdirSync(join(dir, 'docs'));
  million = join(dir, 'docs', 'million.pdf');
  const pdf = pageTreePdf(6);
  assert.ok(pdf.length < 1500, `${pdf.length} bytes`);
  writeFileSync(million, pdf);
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), join(dir, 'docs', 'sample.pdf'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('CLI: a 1.4 KB PDF declaring 1,000,000 pages fails fast, saying so, and writes nothing', async () => {
  const out = join(dir, 'million.md');
  const r = await runCli(['convert', million, '-o', out, '-q'], {
    cwd: dir,
    env: env(),
    maxRssMb: 600,
    timeoutMs: 60_000,
  });
  assert.equal(
    r.killed,
    undefined,
    `stopped by the test's guard (${r.killed}, peak ${r.peakRssMb} MB, ${r.wallMs} ms)`,
  );
  assert.equal(r.status, 1);
  assert.match(
    r.stderr,
    /million\.pdf has 1000000 pages, more than the page limit of 10000: nothing was converted\. If the file is trusted, raise the limit with --max-pages/,
  );
  assert.ok(!existsSync(out));
  process.stdout.write(`# million pages refused in ${r.wallMs} ms, peak RSS ${r.peakRssMb} MB\n`);
});

test('CLI: --max-pages counts the pages selected; a bad value is a usage error', async () => {
  const out = join(dir, 'sample.md');
  let r = await runCli(['convert', join(dir, 'docs', 'sample.pdf'), '-o', out, '-q', '--max-pages', '1'], {
    cwd: dir,
    env: env(),
  });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /sample\.pdf has 2 pages, more than the page limit of 1/);
  r = await runCli(['convert', join(dir, 'docs', 'sample.pdf'), '-o', out, '-q', '--max-pages', '1', '--pages', '2'], {
    cwd: dir,
    env: env(),
  });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(existsSync(out));
  r = await runCli(['convert', million, '-o', join(dir, 'm.md'), '-q', '--pages', '1-3,2-4,999999-'], {
    cwd: dir,
    env: env(),
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\(6 pages/);
  r = await runCli(['convert', million, '-q', '--max-pages', '0'], { cwd: dir, env: env() });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--max-pages must be a whole number from 1 to 1000000, not 0/);
  assert.equal(countPageSelection('1-3,2-4,999999-', 1_000_000), 6);
  assert.equal(countPageSelection('5-', 1_000_000_000), 999_999_996);
});

test('backend: the limit comes from the request (the extension sends folio.limits.maxPages there); the error is TooLarge', async () => {
  const backend = await BackendProcess.start(env());
  try {
    await assert.rejects(
      backend.convert({ uri: join(dir, 'docs', 'sample.pdf'), limits: { maxPages: 1 } }).result,
      (e: { code: number; message: string }) =>
        e.code === FolioErrorCodes.TooLarge &&
        /has 2 pages, more than the page limit of 1.*folio\.limits\.maxPages/.test(e.message),
    );
    const ok = await backend.convert({ uri: join(dir, 'docs', 'sample.pdf'), limits: { maxPages: 2 } }).result;
    assert.equal(ok.pagesDone.length, 2);
    await assert.rejects(
      backend.convert({ uri: million, limits: { maxPages: 10000 } }).result,
      (e: { code: number }) => e.code === FolioErrorCodes.TooLarge,
    );
  } finally {
    await backend.stop();
  }
});

test('MCP: convert_pdf refuses a document past the page limit (default and --max-pages)', async () => {
  const connect = async (...flags: string[]) => {
    const client = new Client({ name: 'folio-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cliPath(), 'mcp', join(dir, 'docs'), ...flags],
        stderr: 'pipe',
        env: { ...process.env, ...env() } as Record<string, string>,
      }),
    );
    return client;
  };
  const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  const plain = await connect();
  try {
    const r = (await plain.callTool({ name: 'convert_pdf', arguments: { path: 'million.pdf' } }, undefined, {
      timeout: 60_000,
    })) as CallToolResult;
    assert.equal(r.isError, true);
    assert.match(text(r), /has 1000000 pages, more than the page limit of 10000/);
  } finally {
    await plain.close();
  }
  const strict = await connect('--max-pages', '1');
  try {
    const r = (await strict.callTool({ name: 'convert_pdf', arguments: { path: 'sample.pdf' } }, undefined, {
      timeout: 120_000,
    })) as CallToolResult;
    assert.equal(r.isError, true);
    assert.match(text(r), /has 2 pages, more than the page limit of 1/);
  } finally {
    await strict.close();
  }
});
