/**
 * End-to-end, in a real VS Code (code-server) with Folio's packaged VSIX: the language-model
 * tool invoked through `vscode.lm.invokeTool` by another installed extension (result, bad path,
 * cancellation), and "Convert All PDFs in Folder" from the explorer's context menu (a failing
 * file, the up-to-date skip, edited Markdown kept). Screenshots go to test/.artifacts/.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildVsix, ensureSetup, until, VsCode } from './harness';
import { AGENT_LONG, writeFixtures, writeLongPdf } from './pdfFixtures';
import { buildTestExtension } from './testExtension';
import { repoRoot } from '../helpers/corpus';

let vs: VsCode;

before(async () => {
  ensureSetup();
  const vsix = buildVsix();
  vs = new VsCode();
  writeFixtures(vs.workspace);
  writeLongPdf(vs.workspace, AGENT_LONG);
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), join(vs.workspace, 'sample.pdf'));
  mkdirSync(join(vs.workspace, 'batch', 'sub'), { recursive: true });
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), join(vs.workspace, 'batch', 'a.pdf'));
  copyFileSync(join(repoRoot(), 'test', 'fixtures', 'two-column.pdf'), join(vs.workspace, 'batch', 'sub', 'b.pdf'));
  writeFileSync(join(vs.workspace, 'batch', 'broken.pdf'), '%PDF-1.4\nthis is not really a PDF\n');
  writeFileSync(join(vs.root, 'outside.pdf'), '%PDF-1.4\n');
  // The user settings turn chat off; the tools API stays available to extensions either way,
  // but this workspace turns it back on so the run matches a normal install.
  mkdirSync(join(vs.workspace, '.vscode'));
  writeFileSync(join(vs.workspace, '.vscode', 'settings.json'), JSON.stringify({ 'chat.disableAIFeatures': false }));
  vs.install(vsix);
  vs.installExtra(buildTestExtension(vs.root));
  await vs.start();
});

after(async () => {
  await vs?.stop();
});

const shot = (name: string, body: () => Promise<void>) => vs.shot(name, body);

interface ToolOutcome {
  ok: boolean;
  text?: string;
  error?: string;
  name?: string;
  elapsedMs: number;
  tools: string[];
}

/** Asks the test extension to invoke the tool; answers VS Code's confirmation dialog; optionally cancels once the Folio log matches `cancelWhenLogged`. */
async function invokeTool(
  id: string,
  input: Record<string, unknown>,
  opts: { answer?: 'Yes' | 'Cancel'; cancelWhenLogged?: RegExp } = {},
): Promise<ToolOutcome> {
  writeFileSync(join(vs.workspace, `lm-request-${id}.json`), JSON.stringify({ input }));
  await vs.command('Folio Test: Invoke LM Tool');
  const result = join(vs.workspace, `lm-result-${id}.json`);
  // The tool's confirmation (prepareInvocation → confirmationMessages), unless it already failed.
  const dialog = vs.page.locator('.monaco-dialog-box');
  await until(`the confirmation for ${id}`, 60_000, async () => existsSync(result) || (await dialog.isVisible()));
  if (!existsSync(result)) {
    const text = await dialog.innerText();
    assert.match(text, /Convert PDF to Markdown/);
    assert.ok(text.includes(String(input.path)), `the dialog names the file: ${text}`);
    await dialog
      .locator('.monaco-button', { hasText: opts.answer ?? 'Yes' })
      .first()
      .click();
    if (opts.cancelWhenLogged !== undefined) {
      // Cancel on an event (the backend says the conversion is under way), not after a delay: on a
      // quiet machine the whole document converted within a fixed 3 s and nothing was left to cancel.
      const seen = opts.cancelWhenLogged;
      await until('the conversion under way in the Folio log', 60_000, () => seen.test(vs.folioLog()), 50);
      writeFileSync(join(vs.workspace, `lm-cancel-${id}`), '');
    }
  }
  await until(`the tool result ${id}`, 180_000, () => existsSync(result));
  return JSON.parse(readFileSync(result, 'utf8')) as ToolOutcome;
}

test('language-model tool: invoked with vscode.lm.invokeTool it returns the PDF’s Markdown; bad paths are refused', async () => {
  await shot('lm-tool', async () => {
    const r = await invokeTool('ok', { path: 'sample.pdf' });
    assert.ok(r.tools.includes('folio_convertPdf'), `registered tools: ${r.tools.join(', ')}`);
    assert.equal(r.ok, true, r.error);
    const cli = spawnSync(
      process.execPath,
      [
        join(repoRoot(), 'dist', 'cli.js'),
        'convert',
        join(vs.workspace, 'sample.pdf'),
        '-o',
        join(vs.root, 'cli.md'),
        '-q',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(cli.status, 0, cli.stderr);
    assert.equal(r.text, readFileSync(join(vs.root, 'cli.md'), 'utf8'), 'the same Markdown as the CLI');
    const page2 = await invokeTool('pages', { path: 'sample.pdf', pages: '2' });
    assert.ok(page2.ok && page2.text!.length > 50 && page2.text!.length < r.text!.length, 'pages limits the result');
    const declined = await invokeTool('declined', { path: 'sample.pdf' }, { answer: 'Cancel' });
    assert.equal(declined.ok, false, 'declining the confirmation does not run the tool');
    const bad = await invokeTool('bad', { path: '../outside.pdf' });
    assert.equal(bad.ok, false);
    assert.match(bad.error ?? '', /outside the workspace folders/);
    assert.ok(!existsSync(join(vs.workspace, 'sample.md')), 'the tool writes nothing');
  });
});

test('language-model tool: the cancellation token stops the backend conversion', async () => {
  await shot('lm-tool-cancel', async () => {
    const r = await invokeTool(
      'cancel',
      { path: AGENT_LONG.file },
      { cancelWhenLogged: new RegExp(`agents-long\\.pdf: converting ${AGENT_LONG.pages} page`) },
    );
    assert.equal(r.ok, false, 'cancelled, not finished');
    assert.match(`${r.name} ${r.error}`, /cancel/i);
    assert.ok(r.elapsedMs < 60_000, `returned ${r.elapsedMs} ms after the call`);
    const line = await until(
      'the cancellation in the Folio log',
      20_000,
      () =>
        new RegExp(
          `folio_convertPdf: conversion of agents-long\\.pdf cancelled after (\\d+) of ${AGENT_LONG.pages} pages`,
        ).exec(vs.folioLog())?.[0],
    );
    assert.ok(Number(/after (\d+) of/.exec(line)![1]) < AGENT_LONG.pages);
  });
});

async function convertFolderFromExplorer(): Promise<void> {
  await vs.explorerMenu('batch', 'Convert All PDFs in Folder');
}

const summaries = () =>
  [...vs.folioLog().matchAll(/convert folder batch: (\d+) converted, (\d+) up to date, (\d+) kept, (\d+) failed/g)].map(
    (m) => m.slice(1).map(Number),
  );

test('convert folder: every PDF below it, one failure reported, then up to date, and edited Markdown kept', async () => {
  await shot('convert-folder', async () => {
    await convertFolderFromExplorer();
    await until('the first batch summary', 240_000, () => summaries().length >= 1);
    assert.deepEqual(summaries()[0], [2, 0, 0, 1], 'a.pdf and sub/b.pdf converted, broken.pdf failed');
    assert.match(vs.folioLog(), /convert folder: batch\/broken\.pdf: .*broken\.pdf/);
    const a = join(vs.workspace, 'batch', 'a.md');
    const b = join(vs.workspace, 'batch', 'sub', 'b.md');
    assert.ok(readFileSync(a, 'utf8').length > 300 && readFileSync(b, 'utf8').length > 300);
    const sidecar = JSON.parse(readFileSync(join(vs.workspace, 'batch', 'a.folio.json'), 'utf8'));
    assert.match(sidecar.pdfSha256, /^[0-9a-f]{64}$/);
    assert.equal(sidecar.pages.length, 2, 'the sidecar maps the pages for the preview');
    const mtime = statSync(a).mtimeMs;

    await convertFolderFromExplorer();
    await until('the second batch summary', 120_000, () => summaries().length >= 2);
    assert.deepEqual(summaries()[1], [0, 2, 0, 1], 'both up to date (content hash), broken still failing');
    assert.equal(statSync(a).mtimeMs, mtime, 'a.md not rewritten');

    appendFileSync(a, '\nMy own note.\n');
    copyFileSync(join(repoRoot(), 'test', 'fixtures', 'sample.pdf'), join(vs.workspace, 'batch', 'sub', 'b.pdf')); // b.pdf's content changed
    await convertFolderFromExplorer();
    await until('the third batch summary', 240_000, () => summaries().length >= 3);
    assert.deepEqual(summaries()[2], [1, 0, 1, 1], 'b.pdf reconverted (its hash changed), edited a.md kept');
    assert.ok(readFileSync(a, 'utf8').includes('My own note.'), 'the edit survives');
  });
});

/** Explorer: (expand `folder`,) right-click the PDF, "Open PDF in Folio Viewer". */
async function openInViewer(folder: string | undefined, file: string): Promise<void> {
  await vs.command('View: Show Explorer');
  const rowOf = (name: string) =>
    vs.page
      .locator('.explorer-folders-view .monaco-list-row', {
        has: vs.page.locator('.label-name', { hasText: new RegExp(`^${name.replace(/\./g, '\\.')}$`) }),
      })
      .first();
  if (folder) {
    const f = rowOf(folder);
    await f.waitFor({ timeout: 30_000 });
    if ((await f.getAttribute('aria-expanded')) !== 'true') await f.click();
  }
  const row = rowOf(file);
  await row.waitFor({ timeout: 30_000 });
  await row.click({ button: 'right' });
  await vs.clickMenuItem('Open PDF in Folio Viewer');
}

test('"Open PDF in Folio Viewer" is the linked view: a converted PDF shows its pages and boxes; an unconverted one converts into the same view', async () => {
  await shot('pdf-viewer', async () => {
    await vs.command('View: Close All Editors');
    await openInViewer('batch', 'a.pdf'); // converted by the folder test: its sidecar has the regions
    const view = vs.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await until(
      'two pages with boxes and images',
      120_000,
      async () =>
        (await view.locator('section.page').count()) === 2 &&
        (await view.locator('#page-1 .region').count()) > 3 &&
        (await view.locator('#page-1 .sheet[data-image="loaded"]').count()) === 1,
    );
    assert.match((await view.locator('#title').textContent()) ?? '', /a\.pdf ⇄ a\.md/);
    // Linked: a click on a box opens a.md with the box's Markdown selected.
    await view.locator('#page-1 .region:not(.unlinked)').first().click();
    await vs.page
      .locator('.monaco-editor[data-uri$="/batch/a.md"] .selected-text')
      .first()
      .waitFor({ timeout: 20_000 });

    // The button runs the usual conversion; sample.pdf has no Markdown yet. The pages arrive in this view.
    await vs.command('View: Close All Editors');
    await openInViewer(undefined, 'sample.pdf');
    const view2 = vs.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await view2.locator('#not-converted #convert-btn').waitFor({ timeout: 60_000 });
    assert.equal(await view2.locator('section.page').count(), 0, 'no pages before the conversion');
    await view2.locator('#convert-btn').click();
    await until(
      'sample.md written by Convert to Markdown',
      180_000,
      () =>
        existsSync(join(vs.workspace, 'sample.md')) &&
        readFileSync(join(vs.workspace, 'sample.md'), 'utf8').length > 300,
    );
    await until(
      'the pages in the same view',
      60_000,
      async () =>
        (await view2.locator('section.page').count()) === 2 && (await view2.locator('#not-converted').isHidden()),
    );
    assert.equal(await vs.page.locator('iframe.webview.ready').count(), 1, 'one view, not a second panel');
  });
});
