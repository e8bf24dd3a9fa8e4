/**
 * `folio mcp` over stdio, driven by the MCP TypeScript SDK's own client (a real child process):
 * tools listed, a conversion returning Markdown and chunks with progress notifications, a
 * cancelled conversion that the server stops (and says so), paths outside the allowed folder,
 * missing files and non-PDFs refused with a clear message; `file://` URIs, the password of an
 * encrypted PDF, compact DoclingDocument JSON, `list_pdfs` offering only what `convert_pdf`
 * accepts, and the cache by content (a repeated or copied document is not converted again: the
 * server's log says so and no progress is sent). Waits are on the server's messages, not on time.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  appendFileSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { corpusPath, repoRoot } from '../helpers/corpus';
import { docChunkLinesErrors, doclingDocumentErrors } from '../export/doclingSchema';

let dir: string;
let allowed: string;
let client: Client;
const logs: string[] = [];
const logWaiters: { re: RegExp; resolve: (line: string) => void }[] = [];

/** The first log line (from now on, or already received after `from`) matching `re`. */
function logLine(re: RegExp, from = 0): Promise<string> {
  const seen = logs.slice(from).find((l) => re.test(l));
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve) => logWaiters.push({ re, resolve }));
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'folio-mcp-'));
  allowed = join(dir, 'docs');
  mkdirSync(allowed);
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), join(allowed, 'sample.pdf'));
  copyFileSync(corpusPath('docling/pdf/redp5110_sampled.pdf'), join(allowed, 'long.pdf'));
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), join(dir, 'secret.pdf'));
  symlinkSync(join(dir, 'secret.pdf'), join(allowed, 'link.pdf'));
  writeFileSync(join(allowed, 'notes.txt'), 'not a pdf');
  copyFileSync(corpusPath('docling/pdf/2206.01062_pg3.password.pdf'), join(allowed, 'locked.pdf'));
  // What list_pdfs must not offer: Folio's picture crops, a link to a folder (a loop), a link out.
  mkdirSync(join(allowed, 'sample.assets'));
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), join(allowed, 'sample.assets', 'sample-p1-1.png'));
  symlinkSync(allowed, join(allowed, 'loop'));
  mkdirSync(join(allowed, 'sub'));
  symlinkSync(join(allowed, 'sample.pdf'), join(allowed, 'sub', 'inner.pdf')); // a link inside the folder: accepted
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(repoRoot(), 'dist', 'cli.js'), 'mcp', allowed],
    stderr: 'pipe',
  });
  client = new Client({ name: 'folio-test', version: '1.0.0' });
  await client.connect(transport);
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    const line = String(n.params.data);
    logs.push(line);
    for (const w of logWaiters.filter((x) => x.re.test(line))) {
      logWaiters.splice(logWaiters.indexOf(w), 1);
      w.resolve(line);
    }
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
  const real = realpathSync(allowed);
  assert.deepEqual(
    listed.split('\n'),
    ['locked.pdf', 'long.pdf', 'sample.pdf', 'sub/inner.pdf'].map((n) => join(real, n)),
    'only what convert_pdf accepts: no crops in sample.assets/, no link out, no walk through the folder link',
  );
  // Every listed path is accepted by convert_pdf (the cheap check: a page list it refuses after the path).
  for (const p of listed.split('\n')) {
    const r = (await client.callTool(
      { name: 'convert_pdf', arguments: { path: p, pages: '9999' } },
      undefined,
      SLOW,
    )) as CallToolResult;
    assert.doesNotMatch(text(r), /outside the folders|not a PDF|not found|not a file/, `${p} passes the path check`);
  }
});

test('convert_pdf returns the Markdown the CLI writes, with a progress notification per page', async () => {
  const progress: { progress: number; total?: number; message?: string }[] = [];
  const r = (await client.callTool({ name: 'convert_pdf', arguments: { path: 'sample.pdf' } }, undefined, {
    onprogress: (p) => progress.push(p),
    ...SLOW,
  })) as CallToolResult;
  assert.ok(!r.isError, text(r));
  const cli = spawnSync(
    process.execPath,
    [join(repoRoot(), 'dist', 'cli.js'), 'convert', join(allowed, 'sample.pdf'), '-o', join(dir, 'cli.md'), '-q'],
    { encoding: 'utf8' },
  );
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

  const chunks = (await client.callTool(
    {
      name: 'convert_pdf',
      arguments: { path: join(allowed, 'sample.pdf'), format: 'chunks', chunkSize: 300, pages: '2' },
    },
    undefined,
    SLOW,
  )) as CallToolResult;
  assert.ok(!chunks.isError, text(chunks));
  assert.deepEqual(docChunkLinesErrors(text(chunks)), [], 'every line a valid docling-core DocChunk');
  const lines = text(chunks)
    .trim()
    .split('\n')
    .map(
      (l) => JSON.parse(l) as { meta: { doc_items: { prov: { page_no: number }[] }[] }; folio: { pages: number[] } },
    );
  assert.ok(lines.length >= 1 && lines.every((c) => c.folio.pages.every((p) => p === 2)), 'chunks of page 2 only');
  assert.ok(
    lines.every((c) => c.meta.doc_items.every((d) => d.prov.every((p) => p.page_no === 2))),
    'Docling chunks whose items are on page 2',
  );
});

test(
  'cancellation: the client aborts on the first progress notification, the server stops and stays usable',
  { timeout: 300_000 },
  async () => {
    const abort = new AbortController();
    let pagesSeen = 0;
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
    // (Waited for as an event: the server's log line, however long a loaded machine takes.)
    const line = await logLine(/long\.pdf cancelled after \d+ of 18 pages/);
    const done = Number(/after (\d+) of/.exec(line)![1]);
    assert.ok(done < 18 && done >= pagesSeen, `stopped after ${done} pages`);
    assert.ok(!logs.some((l) => /long\.pdf: converted/.test(l)), 'the cancelled conversion did not finish');
    const again = (await client.callTool(
      { name: 'convert_pdf', arguments: { path: 'sample.pdf', pages: '1' } },
      undefined,
      SLOW,
    )) as CallToolResult;
    assert.ok(!again.isError && text(again).length > 100, 'next call works');
  },
);

test('file:// URIs, compact DoclingDocument JSON, and the cache by content', { timeout: 300_000 }, async () => {
  // Bytes no other test converted (a comment after %%EOF), so the first call must convert.
  copyFileSync(join(allowed, 'sample.pdf'), join(allowed, 'fresh.pdf'));
  appendFileSync(join(allowed, 'fresh.pdf'), '\n% cache test\n');
  const uri = pathToFileURL(join(allowed, 'fresh.pdf')).href;
  const from = logs.length;
  const md = (await client.callTool(
    { name: 'convert_pdf', arguments: { path: uri, pages: '2' } },
    undefined,
    SLOW,
  )) as CallToolResult;
  assert.ok(!md.isError, text(md));
  await logLine(/fresh\.pdf: converted 1 pages/, from);
  // Same bytes, same pages: from the cache, under another name too; no progress, no conversion.
  copyFileSync(join(allowed, 'fresh.pdf'), join(allowed, 'copy.pdf'));
  const progress: unknown[] = [];
  const fromCache = logs.length;
  const docling = (await client.callTool(
    { name: 'convert_pdf', arguments: { path: 'copy.pdf', pages: '2', format: 'docling' } },
    undefined,
    { ...SLOW, onprogress: (p) => progress.push(p) },
  )) as CallToolResult;
  assert.ok(!docling.isError, text(docling));
  await logLine(/copy\.pdf: from the cache/, fromCache);
  assert.deepEqual(progress, [], 'nothing converted, so no progress');
  const json = text(docling);
  assert.equal(json.trim().split('\n').length, 1, 'compact JSON: one line');
  assert.equal(json.trim(), JSON.stringify(JSON.parse(json)), 'no indentation');
  const doc = JSON.parse(json) as { schema_name: string; origin: { filename: string }; pages: Record<string, unknown> };
  assert.deepEqual(doclingDocumentErrors(doc), [], 'a valid DoclingDocument');
  assert.equal(doc.schema_name, 'DoclingDocument');
  assert.equal(doc.origin.filename, 'copy.pdf', 'the origin is the file asked for');
  assert.deepEqual(Object.keys(doc.pages), ['2']);
  const again = (await client.callTool(
    { name: 'convert_pdf', arguments: { path: uri, pages: '2' } },
    undefined,
    SLOW,
  )) as CallToolResult;
  assert.equal(text(again), text(md), 'the cached Markdown is the converted Markdown');
  // Changed bytes: converted again.
  appendFileSync(join(allowed, 'copy.pdf'), '\n% edited\n');
  const changed = logs.length;
  const edited = (await client.callTool(
    { name: 'convert_pdf', arguments: { path: 'copy.pdf', pages: '2' } },
    undefined,
    SLOW,
  )) as CallToolResult;
  assert.ok(!edited.isError, text(edited));
  await logLine(/copy\.pdf: converted 1 pages/, changed);
  assert.ok(
    !logs.slice(changed).some((l) => /copy\.pdf: from the cache/.test(l)),
    'an edited file is not served from the cache',
  );
  // Only local files.
  const remote = (await client.callTool({
    name: 'convert_pdf',
    arguments: { path: 'https://example.com/a.pdf' },
  })) as CallToolResult;
  assert.equal(remote.isError, true);
  assert.match(text(remote), /only local files/);
});

test('password: an encrypted PDF asks for it, refuses a wrong one, converts with the right one', async () => {
  const none = (await client.callTool(
    { name: 'convert_pdf', arguments: { path: 'locked.pdf' } },
    undefined,
    SLOW,
  )) as CallToolResult;
  assert.equal(none.isError, true);
  assert.match(text(none), /locked\.pdf: .*password/i);
  assert.equal(none._meta?.['folio/errorKind'], 'encrypted', 'the kind, for clients that act on it (docs/errors.md)');
  const wrong = (await client.callTool(
    { name: 'convert_pdf', arguments: { path: 'locked.pdf', password: 'not-it' } },
    undefined,
    SLOW,
  )) as CallToolResult;
  assert.equal(wrong.isError, true);
  assert.match(text(wrong), /password/i);
  assert.notEqual(text(wrong), text(none), 'a wrong password is told apart from none');
  assert.equal(wrong._meta?.['folio/errorKind'], 'password');
  // docling's own test password for this file (docling tests/test_backend_pdf_password.py).
  const right = (await client.callTool(
    { name: 'convert_pdf', arguments: { path: 'locked.pdf', password: '1234' } },
    undefined,
    SLOW,
  )) as CallToolResult;
  assert.ok(!right.isError, text(right));
  assert.match(text(right), /DocLayNet/);
});

test('paths: outside the folder, through a link, missing, not a PDF, bad page list', async () => {
  const call = async (args: Record<string, unknown>) =>
    (await client.callTool({ name: 'convert_pdf', arguments: args })) as CallToolResult;
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
