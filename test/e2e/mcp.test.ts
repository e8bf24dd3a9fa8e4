/**
 * End-to-end, in a real VS Code (code-server 4.139.1 = VS Code 1.139.1) with Folio's packaged
 * VSIX: the MCP server the extension registers with VS Code's MCP server definition API
 * (src/mcpProvider.ts, package.json `mcpServerDefinitionProviders`) is
 *   1. listed by the command palette's "MCP: List Servers" (which activates Folio through
 *      `onMcpCollection:folio.mcp`),
 *   2. started from that list (Folio → Start Server) by VS Code's own MCP client as the process
 *      src/mcpServerSpec.ts describes, its tools discovered ("Discovered 2 tools" in the server's
 *      output, Folio → Show Output) and published in `vscode.lm.tools` as `mcp_folio_<tool>`,
 *   3. called through VS Code's MCP client: `vscode.lm.invokeTool('mcp_folio_convert_pdf', …)`
 *      from another installed extension (test/e2e/mcpTestExtension.ts) converts a real PDF.
 * Every wait is on an event (a list row, the tools' registration in `vscode.lm.tools`, a tool
 * call's answer, a log line), never on a command-palette step that can be dropped under load. Screenshots go to
 * test/.artifacts/.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { buildVsix, ensureSetup, until, VsCode } from './harness';
import { buildMcpTestExtension, type McpOutcome, type McpTools } from './mcpTestExtension';
import { repoRoot } from '../helpers/corpus';
import { cachedNode } from '../helpers/cachedNode';

let vs: VsCode;

before(async () => {
  ensureSetup();
  const vsix = buildVsix();
  vs = new VsCode();
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), join(vs.workspace, 'sample.pdf'));
  writeFileSync(join(vs.root, 'outside.pdf'), '%PDF-1.4\n');
  // The harness's user settings set chat.disableAIFeatures, which hides MCP (List Servers is
  // unavailable); this workspace turns AI features back on, as on a normal install.
  mkdirSync(join(vs.workspace, '.vscode'));
  writeFileSync(join(vs.workspace, '.vscode', 'settings.json'), JSON.stringify({ 'chat.disableAIFeatures': false }));
  vs.install(vsix);
  vs.installExtra(buildMcpTestExtension(vs.root));
  await vs.start();
});

after(async () => {
  await vs?.stop();
});

const shot = (name: string, body: () => Promise<void>) => vs.shot(name, body);

/** The extension host's log (which extension was activated by which event). */
function extHostLog(): string {
  const root = join(vs.root, 'user', 'logs');
  if (!existsSync(root)) return '';
  const found: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n === 'remoteexthost.log') found.push(p);
    }
  };
  walk(root);
  return found.map((f) => readFileSync(f, 'utf8')).join('\n');
}

/**
 * Opens "MCP: List Servers" until Folio's row shows (reopened: a list opened before the extension
 * host has read Folio's contribution does not add it later) and returns Folio's row text.
 */
async function folioServerRow(state: RegExp): Promise<string> {
  const widget = vs.page.locator('.quick-input-widget');
  return until(
    `Folio (${state.source}) in MCP: List Servers`,
    120_000,
    async () => {
      await vs.command('MCP: List Servers');
      const row = widget.locator('.monaco-list-row', { hasText: 'Folio' }).first();
      await row.waitFor({ timeout: 5_000 });
      const text = (await row.innerText()).replace(/\s+/g, ' ');
      return state.test(text) ? text : false;
    },
    500,
  );
}

/** With List Servers open: Folio → one of its actions ("Start Server", "Show Output", …). */
async function folioServerAction(label: string): Promise<void> {
  const widget = vs.page.locator('.quick-input-widget');
  await widget.locator('.monaco-list-row', { hasText: 'Folio' }).first().click();
  const action = widget.locator('.monaco-list-row', { hasText: label }).first();
  await action.waitFor({ timeout: 30_000 });
  await action.click();
}

/**
 * `vscode.lm.tools` once it holds tools named `prefix…`: the MCP test extension rewrites
 * mcp-tools.json when that list changes, i.e. when VS Code registers a server's tools.
 */
async function registeredTools(prefix: string): Promise<McpTools> {
  const file = join(vs.workspace, 'mcp-tools.json');
  return until(`VS Code to register tools named ${prefix}… in vscode.lm.tools`, 180_000, () => {
    if (!existsSync(file)) return false;
    const seen = JSON.parse(readFileSync(file, 'utf8')) as McpTools;
    return seen.tools.some((t) => t.name.startsWith(prefix)) ? seen : false;
  });
}

/** Hands the MCP test extension one tool call (it watches the workspace) and waits for its answer. */
async function request(id: string, body: { tool: string; input: Record<string, unknown> }): Promise<McpOutcome> {
  const file = join(vs.workspace, `mcp-request-${id}.json`);
  // Written whole, then renamed into place: the extension reads it on the rename's event.
  writeFileSync(`${file}.tmp`, JSON.stringify(body));
  renameSync(`${file}.tmp`, file);
  const result = join(vs.workspace, `mcp-result-${id}.json`);
  await until(`the MCP test result ${id}`, 180_000, () => existsSync(result));
  return JSON.parse(readFileSync(result, 'utf8')) as McpOutcome;
}

/** Processes whose command line names the installed extension's dist/cli.js with `mcp`: [pid, exe, argv]. */
function folioMcpProcesses(): { pid: number; exe: string; argv: string[]; env: string[] }[] {
  const cli = join(vs.extensionDir, 'dist', 'cli.js');
  const found: { pid: number; exe: string; argv: string[]; env: string[] }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean);
      if (argv[1] !== cli || argv[2] !== 'mcp') continue;
      const env = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      found.push({ pid: Number(name), exe: readlinkSync(`/proc/${name}/exe`), argv, env });
    } catch {
      /* the process ended while we looked */
    }
  }
  return found;
}

let tools: McpOutcome['tools'] = [];

test('MCP: List Servers lists Folio, offered by the extension (activated on onMcpCollection:folio.mcp)', async () => {
  await shot('mcp-list', async () => {
    const row = await folioServerRow(/Folio/);
    console.log(`List Servers row: ${row}`);
    assert.match(
      extHostLog(),
      /_doActivateExtension folio-dev\.folio, startup: false, activationEvent: 'onMcpCollection:folio\.mcp'/,
    );
  });
});

test('VS Code starts the server (dist/cli.js mcp <workspace> under the extension host’s Node) and discovers its tools', async () => {
  await shot('mcp-start', async () => {
    // As a user does: MCP: List Servers → Folio → Start Server.
    await folioServerRow(/Folio/);
    const clicked = Date.now();
    await folioServerAction('Start Server');
    // The tools reach other extensions' vscode.lm.tools once VS Code has listed them from the
    // server; the wait is on that registration (vscode.lm.onDidChangeTools), nothing later.
    const started = await registeredTools('mcp_folio_');
    console.log(`tools registered in vscode.lm.tools ${started.at - clicked} ms after Start Server`);
    tools = started.tools.filter((t) => t.name.startsWith('mcp_folio_'));
    assert.deepEqual(
      tools.map((t) => t.name).sort(),
      ['mcp_folio_convert_pdf', 'mcp_folio_list_pdfs'],
      `tools: ${started.tools.map((t) => t.name).join(', ')}`,
    );
    const convert = tools.find((t) => t.name === 'mcp_folio_convert_pdf')!;
    assert.ok(convert.tags.includes('mcp'), 'VS Code tags it as an MCP tool');
    assert.match(
      convert.description,
      new RegExp(`Only files inside ${vs.workspace.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} may be read`),
      'the server reads the workspace folder only',
    );
    const schema = convert.inputSchema as { required?: string[]; properties?: Record<string, unknown> };
    assert.deepEqual(schema.required, ['path']);
    assert.ok(
      schema.properties &&
        'format' in schema.properties &&
        'pages' in schema.properties &&
        'password' in schema.properties,
    );

    // The running process is exactly src/mcpServerSpec.ts's: the extension host's Node
    // (code-server's Node 24 here; Electron in desktop VS Code, hence ELECTRON_RUN_AS_NODE), the
    // installed extension's dist/cli.js, `mcp` and the workspace folder.
    const procs = folioMcpProcesses();
    assert.equal(procs.length, 1, `one Folio MCP server process: ${JSON.stringify(procs.map((p) => p.argv))}`);
    assert.deepEqual(procs[0]!.argv.slice(2), ['mcp', vs.workspace]);
    assert.equal(procs[0]!.exe, cachedNode('node24'));
    assert.ok(procs[0]!.env.includes('ELECTRON_RUN_AS_NODE=1'));

    assert.match(await folioServerRow(/Running/), /Folio.*Running/);
    // The server's own log, as a user reads it: List Servers → Folio → Show Output.
    await folioServerAction('Show Output');
    const output = vs.page.locator('.part.panel .view-lines');
    const discovered = output.filter({ hasText: 'Discovered 2 tools' }).first();
    await discovered.waitFor({ timeout: 30_000 });
    // The editor renders spaces as U+00A0.
    const log = (await vs.page.locator('.part.panel .view-line').allTextContents()).join('\n').replace(/\u00a0/g, ' ');
    console.log(`MCP output:\n${log.slice(0, 2000)}`);
    assert.ok(
      log.includes(`[server stderr] folio mcp: serving ${vs.workspace} on stdio`),
      'the server’s stderr reaches the output',
    );
  });
});

test('a tool call through VS Code’s MCP client converts the workspace’s PDF; a path outside it is refused', async () => {
  assert.ok(tools.length > 0, 'needs the started server of the previous test');
  await shot('mcp-call', async () => {
    const listed = await request('list', { tool: 'mcp_folio_list_pdfs', input: {} });
    assert.equal(listed.ok, true, listed.error);
    assert.equal(listed.text?.trim(), join(vs.workspace, 'sample.pdf'));

    const converted = await request('convert', {
      tool: 'mcp_folio_convert_pdf',
      input: { path: 'sample.pdf' },
    });
    assert.equal(converted.ok, true, converted.error);
    // The same Markdown as the CLI with pictures as placeholders (the MCP server returns text only).
    const cli = spawnSync(
      process.execPath,
      [
        join(repoRoot(), 'dist', 'cli.js'),
        'convert',
        join(vs.workspace, 'sample.pdf'),
        '-o',
        join(vs.root, 'cli.md'),
        '--images',
        'none',
        '-q',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(cli.status, 0, cli.stderr);
    assert.equal(converted.text, readFileSync(join(vs.root, 'cli.md'), 'utf8'));
    assert.match(converted.text ?? '', /^# Sliding Window Attention/);
    assert.ok(!existsSync(join(vs.workspace, 'sample.md')), 'the tool writes nothing');

    const outside = await request('outside', {
      tool: 'mcp_folio_convert_pdf',
      input: { path: '../outside.pdf' },
    });
    // The server answers with an MCP error result (isError: the message, then advice for the
    // agent), which VS Code hands back as the tool's text.
    const refusal = `${outside.text ?? ''}${outside.error ?? ''}`;
    assert.ok(
      refusal.startsWith(
        `${join(vs.root, 'outside.pdf')} is outside the folders this server may read (${vs.workspace})`,
      ),
      refusal,
    );
  });
});
