/**
 * A small real extension, packaged with vsce and installed beside Folio in the e2e VS Code, that
 * drives VS Code's own MCP client the way agent mode does, through public API only. It activates
 * at start-up and answers through files in the workspace, so no step of a test waits on the
 * command palette:
 *   - whenever `vscode.lm.tools` changes (and once at activation) it writes `mcp-tools.json`
 *     ({tools, at}) — the moment VS Code registers the MCP servers' tools (as
 *     `mcp_<server>_<tool>`) in this extension host, which is what a test of tool discovery
 *     waits for;
 *   - it watches the workspace folder (inotify, `fs.watch`) for `mcp-request-<id>.json`
 *     ({action: 'invoke', tool, input}) and answers each with `mcp-result-<id>.json`
 *     ({ok, tools, text | error, elapsedMs}) after `vscode.lm.invokeTool(<tool>, {input})`, which
 *     VS Code forwards to the MCP server as a `tools/call`.
 * Files are written under a temporary name and renamed, so a reader never sees half of one.
 * Kept apart from testExtension.ts (the language-model tool's helper) so each test installs only
 * its own.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { repoRoot } from '../helpers/corpus';

export interface McpToolInfo {
  name: string;
  description: string;
  tags: string[];
  inputSchema?: unknown;
}

/** `mcp-tools.json`: `vscode.lm.tools` as of the latest change, and when (ms since the epoch). */
export interface McpTools {
  tools: McpToolInfo[];
  at: number;
}

export interface McpOutcome {
  ok: boolean;
  tools: McpToolInfo[];
  text?: string;
  error?: string;
  elapsedMs: number;
}

const EXTENSION_JS = `
const vscode = require('vscode');
const fs = require('fs');
const path = require('path');
const toolList = () => vscode.lm.tools.map((t) => ({ name: t.name, description: t.description, tags: t.tags, inputSchema: t.inputSchema }));
const writeJson = (file, value) => {
  fs.writeFileSync(file + '.tmp', JSON.stringify(value));
  fs.renameSync(file + '.tmp', file);
};
exports.activate = (context) => {
  const ws = vscode.workspace.workspaceFolders[0].uri.fsPath;
  // vscode.lm.onDidChangeTools is proposed API (not in 1.139's stable vscode.d.ts), so the tool
  // list is compared every 50 ms in this extension host (in memory, no I/O) and written when it changes.
  let seen;
  const publishTools = () => {
    const tools = toolList();
    const names = tools.map((t) => t.name).join(',');
    if (names === seen) return;
    seen = names;
    writeJson(path.join(ws, 'mcp-tools.json'), { tools, at: Date.now() });
  };
  const timer = setInterval(publishTools, 50);
  context.subscriptions.push({ dispose: () => clearInterval(timer) });
  publishTools();
  const busy = new Set();
  const answer = async (name) => {
    const m = /^mcp-request-(.*)\\.json$/.exec(name);
    if (!m || busy.has(name)) return;
    let req;
    try {
      req = JSON.parse(fs.readFileSync(path.join(ws, name), 'utf8'));
    } catch {
      return; // not there (answered) or not written whole yet: the rename's own event follows
    }
    busy.add(name);
    fs.unlinkSync(path.join(ws, name));
    const out = {};
    const t0 = Date.now();
    try {
      const r = await vscode.lm.invokeTool(req.tool, { input: req.input, toolInvocationToken: undefined }, new vscode.CancellationTokenSource().token);
      out.text = r.content.map((p) => (typeof p.value === 'string' ? p.value : '')).join('');
      out.ok = true;
    } catch (e) {
      out.ok = false;
      out.error = String((e && e.message) || e);
    }
    out.elapsedMs = Date.now() - t0;
    out.tools = toolList();
    writeJson(path.join(ws, 'mcp-result-' + m[1] + '.json'), out);
    busy.delete(name);
  };
  const watcher = fs.watch(ws, (_event, name) => { if (name) void answer(String(name)); });
  context.subscriptions.push({ dispose: () => watcher.close() });
  for (const name of fs.readdirSync(ws)) void answer(name);
};
`;

/** Builds the MCP test extension's VSIX in `dir` with the project's vsce; returns its path. */
export function buildMcpTestExtension(dir: string): string {
  const src = join(dir, 'folio-mcp-test');
  mkdirSync(src, { recursive: true });
  writeFileSync(
    join(src, 'package.json'),
    JSON.stringify({
      name: 'folio-mcp-test',
      publisher: 'folio-test',
      version: '0.0.1',
      license: 'MIT',
      engines: { vscode: '^1.101.0' },
      main: './extension.js',
      // At start-up, so it hears the tools' registration whenever it happens.
      activationEvents: ['onStartupFinished'],
    }),
  );
  writeFileSync(join(src, 'extension.js'), EXTENSION_JS);
  writeFileSync(join(src, 'README.md'), 'Test extension for Folio end-to-end tests of the MCP server in VS Code.\n');
  const vsce = join(repoRoot(), 'node_modules', '@vscode', 'vsce', 'vsce');
  const out = join(dir, 'folio-mcp-test.vsix');
  const r = spawnSync(
    process.execPath,
    [vsce, 'package', '--allow-missing-repository', '--skip-license', '--out', out],
    { cwd: src, encoding: 'utf8', timeout: 120_000 },
  );
  if (r.status !== 0) throw new Error(`packaging the MCP test extension failed: ${r.stdout}\n${r.stderr}`);
  return out;
}
