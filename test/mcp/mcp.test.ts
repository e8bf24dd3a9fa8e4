/**
 * `folio mcp` over stdio, driven by the MCP TypeScript SDK's own client (a real child process):
 * tools listed, a conversion returning Markdown and chunks with progress notifications, a
 * cancelled conversion that the server stops (and says so), paths outside the allowed folder,
 * missing files and non-PDFs refused with a clear message.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { corpusPath, repoRoot } from '../helpers/corpus';

let dir: string;
let allowed: string;
let client: Client;
const logs: string[] = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'folio-mcp-'));
  allowed = join(dir, 'docs');
  mkdirSync(allowed);
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), join(allowed, 'sample.pdf'));
  copyFileSync(corpusPath('docling/pdf/redp5110_sampled.pdf'), join(allowed, 'long.pdf'));
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), join(dir, 'secret.pdf'));
  symlinkSync(join(dir, 'secret.pdf'), join(allowed, 'link.pdf'));
  writeFileSync(join(allowed, 'notes.txt'), 'not a pdf');
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(repoRoot(), 'dist', 'cli.js'), 'mcp', allowed], stderr: 'pipe' });
  client = new Client({ name: 'folio-test', version: '1.0.0' });
  await client.connect(transport);
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(String(n.params.data));
  });
  await client.setLoggingLevel('info');
});

after(async () => {
  await client?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Conversions on a loaded 2-core machine can exceed the SDK's default 60 s request timeout. */
const SLOW = { timeout: 300_000, resetTimeoutOnProgress: true };

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

test('lists its tools with input schemas', async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, ['convert_pdf', 'list_pdfs']);
  const convert = tools.find((t) => t.name === 'convert_pdf')!;
  assert.deepEqual(convert.inputSchema.required, ['path']);
  assert.ok(convert.inputSchema.properties?.format);
  const listed = text((await client.callTool({ name: 'list_pdfs', arguments: {} })) as CallToolResult);
  assert.ok(listed.includes(join(allowed, 'sample.pdf')) || listed.includes('sample.pdf'), listed);
});

test('convert_pdf returns the Markdown the CLI writes, with a progress notification per page', async () => {
  const progress: { progress: number; total?: number; message?: string }[] = [];
  const r = (await client.callTool({ name: 'convert_pdf', arguments: { path: 'sample.pdf' } }, undefined, { onprogress: (p) => progress.push(p), ...SLOW })) as CallToolResult;
  assert.ok(!r.isError, text(r));
  const cli = spawnSync(process.execPath, [join(repoRoot(), 'dist', 'cli.js'), 'convert', join(allowed, 'sample.pdf'), '-o', join(dir, 'cli.md'), '-q'], { encoding: 'utf8' });
  assert.equal(cli.status, 0, cli.stderr);
  assert.equal(r.content[0]!.type === 'text' ? r.content[0]!.text : '', readFileSync(join(dir, 'cli.md'), 'utf8'));
  // Per page, increasing, with the page count; the last one may arrive after the result (the
  // client then drops it), so only the ones before it are checked.
  assert.ok(progress.length >= 1, `progress notifications: ${JSON.stringify(progress)}`);
  progress.forEach((p, i) => {
    assert.equal(p.total, 2);
    assert.match(p.message ?? '', new RegExp(`sample\\.pdf: page ${p.progress}/2`));
    if (i > 0) assert.ok(p.progress > progress[i - 1]!.progress, 'increasing');
  });

  const chunks = (await client.callTool({ name: 'convert_pdf', arguments: { path: join(allowed, 'sample.pdf'), format: 'chunks', chunkSize: 300, pages: '2' } }, undefined, SLOW)) as CallToolResult;
  assert.ok(!chunks.isError, text(chunks));
  const lines = text(chunks).trim().split('\n').map((l) => JSON.parse(l) as { meta: { doc_items: { prov: { page_no: number }[] }[] }; folio: { pages: number[] } });
  assert.ok(lines.length >= 1 && lines.every((c) => c.folio.pages.every((p) => p === 2)), 'chunks of page 2 only');
  assert.ok(lines.every((c) => c.meta.doc_items.every((d) => d.prov.every((p) => p.page_no === 2))), 'Docling chunks whose items are on page 2');
});

test('cancellation: the client aborts on the first progress notification, the server stops and stays usable', async () => {
  const abort = new AbortController();
  let pagesSeen = 0;
  const started = Date.now();
  const call = client.callTool({ name: 'convert_pdf', arguments: { path: 'long.pdf' } }, undefined, {
    ...SLOW,
    signal: abort.signal,
    onprogress: (p) => {
      pagesSeen = p.progress;
      // The first notification (page count known, pages under way) is the moment to cancel.
      abort.abort('user cancelled');
    },
  });
  await assert.rejects(call, (e: Error) => /cancel|abort/i.test(String(e)) || e.name === 'AbortError');
  // The server reports that it stopped, well before the 18 pages could be done.
  const deadline = Date.now() + 30_000;
  while (!logs.some((l) => /long\.pdf cancelled after \d+ of 18 pages/.test(l)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const line = logs.find((l) => /long\.pdf cancelled/.test(l));
  assert.ok(line, `server logged the cancellation: ${JSON.stringify(logs)}`);
  const done = Number(/after (\d+) of/.exec(line!)![1]);
  assert.ok(done < 18 && done >= pagesSeen, `stopped after ${done} pages`);
  const again = (await client.callTool({ name: 'convert_pdf', arguments: { path: 'sample.pdf', pages: '1' } }, undefined, SLOW)) as CallToolResult;
  assert.ok(!again.isError && text(again).length > 100, 'next call works');
  assert.ok(Date.now() - started < 120_000);
});

test('paths: outside the folder, through a link, missing, not a PDF, bad page list', async () => {
  const call = async (args: Record<string, unknown>) => (await client.callTool({ name: 'convert_pdf', arguments: args })) as CallToolResult;
  let r = await call({ path: join(dir, 'secret.pdf') });
  assert.equal(r.isError, true);
  assert.match(text(r), /secret\.pdf is outside the folders this server may read/);
  r = await call({ path: '../secret.pdf' });
  assert.equal(r.isError, true);
  assert.match(text(r), /outside the folders/);
  r = await call({ path: 'link.pdf' });
  assert.equal(r.isError, true, 'a symbolic link out of the folder is refused');
  assert.match(text(r), /outside the folders/);
  r = await call({ path: 'missing.pdf' });
  assert.equal(r.isError, true);
  assert.match(text(r), /missing\.pdf was not found/);
  r = await call({ path: 'notes.txt' });
  assert.equal(r.isError, true);
  assert.match(text(r), /notes\.txt is not a PDF/);
  r = await call({ path: 'sample.pdf', pages: 'all of them' });
  assert.equal(r.isError, true, 'the input schema rejects a bad page list');
});

test('folio mcp without a folder refuses to start', () => {
  const r = spawnSync(process.execPath, [join(repoRoot(), 'dist', 'cli.js'), 'mcp'], { encoding: 'utf8', input: '' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /name at least one folder/);
});
