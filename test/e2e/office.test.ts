/**
 * End-to-end, in a real VS Code (code-server) with Folio's packaged VSIX (issue 41): a Word file
 * and an Excel workbook, both written by LibreOffice (eval/office/made/, make.sh), converted from
 * the explorer's context menu. The Markdown is written beside each file and opened in an editor;
 * its headings and table cells are checked in the file and on screen, so a broken reader, menu
 * entry or command fails here. Screenshots go to test/.artifacts/.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildVsix, ensureSetup, until, VsCode } from './harness';
import { repoRoot } from '../helpers/corpus';

let vs: VsCode;
const made = (f: string) => join(repoRoot(), 'eval', 'office', 'made', f);

before(async () => {
  ensureSetup();
  const vsix = buildVsix();
  vs = new VsCode();
  copyFileSync(made('report.docx'), join(vs.workspace, 'report.docx'));
  copyFileSync(made('survey.xlsx'), join(vs.workspace, 'survey.xlsx'));
  vs.install(vsix);
  await vs.start();
});

after(async () => {
  await vs?.stop();
});

const shot = (name: string, body: () => Promise<void>) => vs.shot(name, body);

/** Explorer: right-click `file`, then the menu's conversion entry (retried when the menu that opened is another row's). */
async function convertFromExplorer(file: string): Promise<void> {
  await vs.explorerMenu(file, 'Convert Document to Markdown');
}

/** Waits for `md` (a workspace file) to hold `mustHave`, then for its editor to show `onScreen`. */
async function writtenAndOpened(md: string, mustHave: RegExp[], onScreen: string): Promise<string> {
  const path = join(vs.workspace, md);
  await until(
    `${md} written`,
    180_000,
    () => existsSync(path) && mustHave.every((re) => re.test(readFileSync(path, 'utf8'))),
  );
  const editor = vs.page.locator(`.monaco-editor[data-uri$="/${md}"] .view-lines`).first();
  await until(`${md} open in an editor showing "${onScreen}"`, 60_000, async () =>
    ((await editor.textContent().catch(() => '')) ?? '').replace(/\u00a0/g, ' ').includes(onScreen),
  );
  assert.ok(await vs.page.locator('.tab', { hasText: md }).first().isVisible(), `a tab for ${md}`);
  return readFileSync(path, 'utf8');
}

test('explorer: a LibreOffice .docx converts to Markdown with its headings, numbered list and merged table, opened beside', async () => {
  await shot('office-docx', async () => {
    await convertFromExplorer('report.docx');
    const md = await writtenAndOpened(
      'report.md',
      [/^## Quarterly Field Report$/m, /<td rowspan="2">South reed bed<\/td>/],
      'Quarterly Field Report',
    );
    assert.match(md, /^### Methods$/m);
    assert.match(md, /^ {4}1\. Record every bird seen\.$/m, 'the nested numbered list');
    // (header cells as <th> or <td>: whether Word's first row is a header is the reader's call)
    assert.match(
      md,
      /<tr><t([hd])>Site<\/t\1><t\1 colspan="2">Counts<\/t\1><t\1>Notes<\/t\1><\/tr>/,
      'the merged header cell',
    );
    assert.match(md, /^- Grey herons nested near the south reed bed\.$/m);
    assert.doesNotMatch(vs.folioLog(), /\[error\]/, 'no error in the Folio log');
  });
});

test('explorer: a LibreOffice .xlsx converts to a Markdown table under its sheet name, opened beside', async () => {
  await shot('office-xlsx', async () => {
    await vs.closeAllEditors();
    await convertFromExplorer('survey.xlsx');
    const md = await writtenAndOpened(
      'survey.md',
      [/^## Sheet1$/m, /^\| South reed bed \| Coot \| 18 \| 15 \| 33 \|$/m],
      'South reed bed',
    );
    assert.match(md, /^\| Site \| Species \| April \| May \| Total \|$/m, 'the header row');
    assert.equal(md.match(/^\| North marsh \|/gm)?.length, 2, 'every data row');
    assert.doesNotMatch(vs.folioLog(), /\[error\]/, 'no error in the Folio log');
  });
});
