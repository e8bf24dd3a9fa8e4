/**
 * The README's MCP set-up, run as written on this checkout: the install commands of its
 * "MCP server" section (`npm install -g .`, into a temporary npm prefix through npm's own
 * `npm_config_prefix`, offline), then each client snippet's `command` and `args` exactly as the
 * README gives them (only `${workspaceFolder}` and the example folder replaced by a test folder),
 * started by the MCP SDK's client the way an editor starts a stdio server. Also the definition
 * the extension hands VS Code (src/mcpServerSpec.ts), started the same way.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { tmpdir } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { repoRoot } from '../helpers/corpus';
import { folioMcpServerSpec } from '../../src/mcpServerSpec';

interface Snippet {
  client: string;
  command: string;
  args: string[];
}

/** The README's "MCP server" section: its shell block's commands and its JSON snippets' folio server. */
function readmeSetup(): { install: string[]; snippets: Snippet[] } {
  const readme = readFileSync(join(repoRoot(), 'README.md'), 'utf8');
  const start = readme.indexOf('## MCP server');
  assert.ok(start >= 0, 'README has an "MCP server" section');
  const end = readme.indexOf('\n## ', start + 5);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, body: m[2]! }));
  const install = blocks
    .filter((b) => b.lang === 'sh')
    .flatMap((b) =>
      b.body
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith('#')),
    );
  const snippets: Snippet[] = [];
  for (const b of blocks.filter((x) => x.lang === 'json')) {
    const j = JSON.parse(b.body) as {
      servers?: Record<string, { command: string; args: string[] }>;
      mcpServers?: Record<string, { command: string; args: string[] }>;
    };
    const s = j.servers?.folio ?? j.mcpServers?.folio;
    if (s)
      snippets.push({
        client: j.servers ? 'VS Code .vscode/mcp.json' : 'Claude Desktop',
        command: s.command,
        args: s.args,
      });
  }
  return { install, snippets };
}

let dir: string;
let prefix: string;
let docs: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'folio-readme-mcp-'));
  prefix = join(dir, 'npm-prefix');
  docs = join(dir, 'papers');
  mkdirSync(docs);
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), join(docs, 'sample.pdf'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Starts a stdio server as an MCP client does, lists its tools and converts page 1 of sample.pdf. */
async function exercise(command: string, args: string[], env: Record<string, string>): Promise<void> {
  const client = new Client({ name: 'folio-readme-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, env, stderr: 'pipe' }));
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['convert_pdf', 'list_pdfs']);
    const listed = (await client.callTool({ name: 'list_pdfs', arguments: {} })) as CallToolResult;
    assert.deepEqual(listed.content, [{ type: 'text', text: join(realpathSync(docs), 'sample.pdf') }]);
    const r = (await client.callTool(
      { name: 'convert_pdf', arguments: { path: 'sample.pdf', pages: '1' } },
      undefined,
      { timeout: 300_000 },
    )) as CallToolResult;
    assert.ok(!r.isError, JSON.stringify(r.content).slice(0, 300));
    assert.match(
      r.content[0]!.type === 'text' ? r.content[0]!.text : '',
      /Sliding Window Attention for Efficient Inference/,
    );
  } finally {
    await client.close();
  }
}

test('README: the install commands put `folio` on the PATH, offline, and every client snippet runs as written', async () => {
  const { install, snippets } = readmeSetup();
  assert.ok(
    install.includes('npm install -g .'),
    `the README installs with npm install -g . (${JSON.stringify(install)})`,
  );
  // `npm ci` fails on this registry (other platforms' optional @napi-rs/canvas binaries; README quick start).
  assert.deepEqual(
    install.slice(0, 2),
    ['npm install', 'npm run build'],
    'the same install as the quick start, then the build',
  );
  assert.ok(snippets.length >= 2, 'VS Code and Claude Desktop snippets');
  // `npm install` and `npm run build` have run for this test run already (node_modules, dist/); the
  // global install is run as written, with npm's prefix pointed at a temporary folder.
  for (const line of install.filter((l) => l.startsWith('npm install -g'))) {
    const [cmd, ...args] = line.split(/\s+/);
    execFileSync(cmd!, args, {
      cwd: repoRoot(),
      env: {
        ...process.env,
        npm_config_prefix: prefix,
        npm_config_offline: 'true',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
      },
      stdio: 'pipe',
    });
  }
  const bin = join(prefix, 'bin');
  assert.ok(existsSync(join(bin, 'folio')), 'npm linked a `folio` command');
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
  };
  for (const s of snippets) {
    assert.equal(s.command, 'folio', `${s.client}: the command the install provides`);
    const args = s.args.map((a) => (a === '${workspaceFolder}' || a.startsWith('/home/me/') ? docs : a));
    assert.deepEqual(args, ['mcp', docs], `${s.client}: mcp and one folder`);
    await exercise(s.command, args, env);
  }
});

test('the server the extension offers VS Code (McpStdioServerDefinition) starts and serves the workspace folders', async () => {
  assert.equal(
    folioMcpServerSpec(repoRoot(), [], process.execPath, '0.1.0'),
    undefined,
    'no folder open: no server (folio mcp needs one)',
  );
  const spec = folioMcpServerSpec(repoRoot(), [docs], process.execPath, '0.1.0')!;
  assert.equal(spec.args[0], join(repoRoot(), 'dist', 'cli.js'));
  await exercise(spec.command, spec.args, { ...(process.env as Record<string, string>), ...spec.env });
});
