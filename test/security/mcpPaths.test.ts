/**
 * Security round 3 (issue 34), F7: `folio mcp` told an (untrusted) MCP client whether any path
 * on the machine exists: "/etc/passwd is outside the folders…" but "/etc/nonexistent was not
 * found". A real `folio mcp` over stdio (the MCP SDK's client), as an MCP client would call it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliPath } from './issue21Cli';
import { repoRoot } from '../helpers/corpus';

let dir: string;
let client: Client;
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'folio-sec-mcp-'));
  mkdirSync(join(dir, 'docs'));
  mkdirSync(join(dir, 'elsewhere'));
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), join(dir, 'docs', 'sample.pdf'));
  writeFileSync(join(dir, 'elsewhere', 'exists.pdf'), '%PDF-1.4 not really');
  symlinkSync(join(dir, 'elsewhere', 'exists.pdf'), join(dir, 'docs', 'out-link.pdf'));
  // A link inside the folder that leads out (a cloned repository can ship one): round 4, N6.
  symlinkSync('/', join(dir, 'docs', 'up'));
  symlinkSync(join(dir, 'elsewhere'), join(dir, 'docs', 'side'));
  client = new Client({ name: 'folio-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [cliPath(), 'mcp', join(dir, 'docs')],
      stderr: 'pipe',
      env: { ...process.env, FOLIO_CACHE_DIR: join(dir, 'cache') } as Record<string, string>,
    }),
  );
});
after(async () => {
  await client?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('F7: every path outside the folders gets the same answer, whether it exists or not', async () => {
  const answer = async (path: string) => {
    const r = (await client.callTool({ name: 'convert_pdf', arguments: { path } })) as CallToolResult;
    assert.equal(r.isError, true, `${path}: ${text(r)}`);
    // The answer names the path asked about; with it taken out, every answer must be the same.
    const named = path.startsWith('file:') ? new URL(path).pathname : resolve(dir, 'docs', path);
    return text(r).split(named).join('<path>');
  };
  const pairs: [string, string][] = [
    ['/etc/passwd', '/etc/nonexistent-zzz'],
    [join(dir, 'elsewhere', 'exists.pdf'), join(dir, 'elsewhere', 'missing.pdf')],
    [join(dir, 'elsewhere'), join(dir, 'nowhere')],
    [pathToFileURL('/etc/passwd').href, pathToFileURL('/etc/nonexistent-zzz').href],
  ];
  for (const [exists, missing] of pairs) {
    const a = await answer(exists);
    const b = await answer(missing);
    assert.equal(a, b, `${exists} and ${missing} are told apart`);
    assert.match(a, /is outside the folders this server may read/);
  }
  // Relative paths that climb out: the same answer too.
  assert.equal(await answer('../elsewhere/exists.pdf'), await answer('../elsewhere/missing.pdf'));
  // Inside the folder nothing changes: a link out is outside, a missing file is missing, a PDF converts.
  assert.match(await answer('out-link.pdf'), /outside the folders/);
  assert.match(await answer('missing.pdf'), /was not found/);
  const ok = (await client.callTool({ name: 'convert_pdf', arguments: { path: 'sample.pdf' } }, undefined, {
    timeout: 120_000,
  })) as CallToolResult;
  assert.ok(!ok.isError, text(ok));
});

test('N6: through a link inside the folder (`up -> /`), existing and missing paths outside get the same answer', async () => {
  const answer = async (path: string) => {
    const r = (await client.callTool({ name: 'convert_pdf', arguments: { path } })) as CallToolResult;
    assert.equal(r.isError, true, `${path}: ${text(r)}`);
    return text(r)
      .split(resolve(dir, 'docs', path))
      .join('<path>');
  };
  const pairs: [string, string][] = [
    ['up/etc/passwd', 'up/etc/nonexistent-zzz'],
    ['up/etc', 'up/nonexistent-dir-zzz'],
    ['up/etc/passwd', 'up/etc/nonexistent-dir/deeper/x.pdf'],
    ['side/exists.pdf', 'side/missing.pdf'],
    [join(dir, 'docs', 'side', 'exists.pdf'), join(dir, 'docs', 'side', 'missing', 'x.pdf')],
  ];
  for (const [exists, missing] of pairs) {
    const a = await answer(exists);
    const b = await answer(missing);
    assert.equal(a, b, `${exists} and ${missing} are told apart`);
    assert.match(a, /is outside the folders this server may read/);
  }
  // A missing file that would lie inside the folder is still "not found".
  assert.match(await answer('sub/missing.pdf'), /was not found/);
});
