/**
 * A small real extension, packaged with vsce and installed beside Folio in the e2e VS Code, that
 * drives VS Code's own MCP client the way agent mode does, through public API only:
 *   - `start`: runs VS Code's "Start Server" command (`workbench.mcp.startServer`, `'*'`, with
 *     `waitForLiveTools`: it returns once the started servers' tools are live), waits until a
 *     tool named `toolPrefix…` reaches this extension host, then reports `vscode.lm.tools`, where
 *     VS Code publishes the MCP servers' tools (as `mcp_<server>_<tool>`);
 *   - `tools`: the same wait and report, without starting anything;
 *   - `invoke`: `vscode.lm.invokeTool(<tool name>, {input})` on one of those tools, which VS Code
 *     forwards to the MCP server as a `tools/call`.
 * Its command reads `mcp-request-<id>.json` ({action, toolPrefix?, tool?, input?}) from the workspace and
 * writes `mcp-result-<id>.json` ({ok, tools, text | error, elapsedMs}). Kept apart from
 * testExtension.ts (the language-model tool's helper) so each test installs only its own.
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
exports.activate = (context) => {
  context.subscriptions.push(vscode.commands.registerCommand('folioMcpTest.run', async () => {
    const ws = vscode.workspace.workspaceFolders[0].uri.fsPath;
    const pending = fs.readdirSync(ws).filter((n) => /^mcp-request-.*\\.json$/.test(n));
    for (const name of pending) {
      const id = name.slice('mcp-request-'.length, -'.json'.length);
      const req = JSON.parse(fs.readFileSync(path.join(ws, name), 'utf8'));
      fs.unlinkSync(path.join(ws, name));
      const out = {};
      const t0 = Date.now();
      try {
        if (req.action === 'start') await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true });
        if (req.action === 'start' || req.action === 'tools') {
          // The workbench publishes the live tools to this extension host in a separate message:
          // wait (bounded) until a tool named with req.toolPrefix arrives.
          const until = Date.now() + 60000;
          while (req.toolPrefix && !vscode.lm.tools.some((t) => t.name.startsWith(req.toolPrefix)) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
        }
        if (req.action === 'invoke') {
          const r = await vscode.lm.invokeTool(req.tool, { input: req.input, toolInvocationToken: undefined }, new vscode.CancellationTokenSource().token);
          out.text = r.content.map((p) => (typeof p.value === 'string' ? p.value : '')).join('');
        }
        out.ok = true;
      } catch (e) {
        out.ok = false;
        out.error = String((e && e.message) || e);
      }
      out.elapsedMs = Date.now() - t0;
      out.tools = toolList();
      fs.writeFileSync(path.join(ws, 'mcp-result-' + id + '.json'), JSON.stringify(out));
    }
  }));
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
      activationEvents: [],
      contributes: { commands: [{ command: 'folioMcpTest.run', title: 'Folio MCP Test: Run Request' }] },
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
