/**
 * Issue 34 / E3: `folio.outputDirectory` (a `resource` setting, so a trusted workspace's
 * `.vscode/settings.json` can set it) must not send the `.md`, sidecar, assets and exports out of
 * the workspace. At ca9d090 `../../x` or an absolute folder elsewhere was used as given, and the
 * write then created it: the write check's root falls back to the target's own folder when the
 * target is in no workspace folder. The real `src/paths.ts` runs here against a `vscode` stand-in
 * (test/helpers/vscodeFake.ts: Uri and getWorkspaceFolder only), and the real safe write.
 */
// First: it answers require('vscode') for the modules imported after it.
import { FakeUri, workspaceFolders } from '../helpers/vscodeFake';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { markdownUriFor, outputUriFor } from '../../src/paths';
import { writeLocalFile } from '../../src/localFiles';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'folio-outdir-')));
const ws = join(base, 'ws');
mkdirSync(join(ws, 'papers'), { recursive: true });
workspaceFolders.push({ uri: FakeUri.file(ws), name: 'ws', index: 0 });
const pdf = vscode.Uri.file(join(ws, 'papers', 'notes.pdf'));
test.after(() => rmSync(base, { recursive: true, force: true }));

test('E3: an output folder inside the workspace is used (relative to the PDF, "..", or absolute)', async () => {
  assert.equal(markdownUriFor(pdf, '').fsPath, join(ws, 'papers', 'notes.md'));
  assert.equal(markdownUriFor(pdf, 'out').fsPath, join(ws, 'papers', 'out', 'notes.md'));
  assert.equal(markdownUriFor(pdf, '..').fsPath, join(ws, 'notes.md'));
  assert.equal(markdownUriFor(pdf, join(ws, 'md')).fsPath, join(ws, 'md', 'notes.md'));
  assert.equal(outputUriFor(pdf, 'out', '.docling.json').fsPath, join(ws, 'papers', 'out', 'notes.docling.json'));
  await writeLocalFile(markdownUriFor(pdf, 'out'), '# notes\n');
  assert.ok(existsSync(join(ws, 'papers', 'out', 'notes.md')));
});

test('E3: "../../x" and an absolute folder outside the workspace are refused with the reason, nothing written', async () => {
  const outside = [
    ['../../outside-rel', join(base, 'outside-rel')],
    [join(base, 'outside-abs', 'deep', 'er'), join(base, 'outside-abs')],
    ['/tmp/../' + base.slice(1) + '/x', join(base, 'x')],
  ] as const;
  for (const [setting, folder] of outside) {
    let written = false;
    await assert.rejects(
      (async () => {
        const md = markdownUriFor(pdf, setting);
        await writeLocalFile(md, 'stolen');
        written = true;
      })(),
      (e: Error) => {
        assert.match(e.message, /folio\.outputDirectory ".*" leads to .*, outside .* \(the workspace folder\)/);
        assert.match(e.message, /Set folio\.outputDirectory to a folder inside the workspace/);
        return true;
      },
      setting,
    );
    assert.equal(written, false);
    assert.equal(existsSync(folder), false, `${folder} was created`);
    assert.throws(() => outputUriFor(pdf, setting, '.chunks.jsonl'), /outside/);
  }
});

test('E3: a PDF in no workspace folder keeps its outputs below its own folder', () => {
  const loose = vscode.Uri.file(join(base, 'loose', 'a.pdf'));
  assert.equal(markdownUriFor(loose, 'out').fsPath, join(base, 'loose', 'out', 'a.md'));
  assert.throws(() => markdownUriFor(loose, '../elsewhere'), /outside .* \(the PDF's folder\)/);
});
