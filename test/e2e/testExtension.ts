/**
 * A small real extension, packaged with vsce and installed beside Folio in the e2e VS Code, that
 * calls `vscode.lm.invokeTool('folio_convertPdf', …)` the way another extension or agent would.
 * Its command reads `lm-request-<id>.json` from the workspace ({input}), cancels the call's token
 * when `lm-cancel-<id>` appears, and writes `lm-result-<id>.json` ({ok, text | error, name,
 * elapsedMs, tools}).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { repoRoot } from '../helpers/corpus';

const EXTENSION_JS = `
const vscode = require('vscode');
const fs = require('fs');
const path = require('path');
exports.activate = (context) => {
  context.subscriptions.push(vscode.commands.registerCommand('folioTest.invokeTool', async () => {
    const ws = vscode.workspace.workspaceFolders[0].uri.fsPath;
    const pending = fs.readdirSync(ws).filter((n) => /^lm-request-.*\\.json$/.test(n));
    for (const name of pending) {
      const id = name.slice('lm-request-'.length, -'.json'.length);
      const req = JSON.parse(fs.readFileSync(path.join(ws, name), 'utf8'));
      fs.unlinkSync(path.join(ws, name));
      const out = { tools: vscode.lm.tools.map((t) => t.name) };
      const cts = new vscode.CancellationTokenSource();
      // The test cancels by creating lm-cancel-<id> (after it confirmed the call in the dialog).
      const cancelFile = path.join(ws, 'lm-cancel-' + id);
      const poll = setInterval(() => { if (fs.existsSync(cancelFile)) cts.cancel(); }, 100);
      const t0 = Date.now();
      try {
        const r = await vscode.lm.invokeTool('folio_convertPdf', { input: req.input, toolInvocationToken: undefined }, cts.token);
        out.ok = true;
        out.text = r.content.map((p) => (typeof p.value === 'string' ? p.value : '')).join('');
      } catch (e) {
        out.ok = false;
        out.error = String((e && e.message) || e);
        out.name = e && e.name;
      }
      clearInterval(poll);
      out.elapsedMs = Date.now() - t0;
      // Written whole, then renamed: the test reads the file the moment it exists (a plain write
      // was once read empty: "Unexpected end of JSON input").
      const done = path.join(ws, 'lm-result-' + id + '.json');
      fs.writeFileSync(done + '.part', JSON.stringify(out));
      fs.renameSync(done + '.part', done);
    }
  }));
};
`;

/** Builds the test extension's VSIX in `dir` with the project's vsce; returns its path. */
export function buildTestExtension(dir: string): string {
  const src = join(dir, 'folio-lm-test');
  mkdirSync(src, { recursive: true });
  writeFileSync(
    join(src, 'package.json'),
    JSON.stringify({
      name: 'folio-lm-test',
      publisher: 'folio-test',
      version: '0.0.1',
      license: 'MIT',
      engines: { vscode: '^1.95.0' },
      main: './extension.js',
      activationEvents: [],
      contributes: { commands: [{ command: 'folioTest.invokeTool', title: 'Folio Test: Invoke LM Tool' }] },
    }),
  );
  writeFileSync(join(src, 'extension.js'), EXTENSION_JS);
  writeFileSync(join(src, 'README.md'), 'Test extension for Folio end-to-end tests.\n');
  const vsce = join(repoRoot(), 'node_modules', '@vscode', 'vsce', 'vsce');
  const out = join(dir, 'folio-lm-test.vsix');
  const r = spawnSync(
    process.execPath,
    [vsce, 'package', '--allow-missing-repository', '--skip-license', '--out', out],
    { cwd: src, encoding: 'utf8', timeout: 120_000 },
  );
  if (r.status !== 0) throw new Error(`packaging the test extension failed: ${r.stdout}\n${r.stderr}`);
  return out;
}
