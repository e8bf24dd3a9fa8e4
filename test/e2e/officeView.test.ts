/**
 * End-to-end, in a real VS Code (code-server + Chromium): the view of a converted Office file
 * (issue 41, item 4). A Word document made by LibreOffice opens its Markdown with a linked
 * outline: its headings and table listed (document text as text), a click on an entry reveals it
 * in the `.md`, the `.md` cursor selects the entry of its section. A PPTX made by LibreOffice
 * shows its slides as pages (LibreOffice prints them, the backend renders the pages), with the
 * outline beside them and a line saying so; with LibreOffice gone, the slides are an outline and
 * the view says why. Screenshots: test/.artifacts/e2e-office-*.png.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { buildVsix, ensureSetup, until, VsCode } from './harness';
import { findSoffice } from '../../src/preview/libreOffice';
import { repoRoot } from '../helpers/corpus';

let vs: VsCode;
const FIXTURES = join(repoRoot(), 'test', 'fixtures', 'office-view');
/** The `soffice` the extension finds (FOLIO_SOFFICE): a link to the real one, removed for the fallback test. */
let sofficeLink = '';

before(async () => {
  ensureSetup();
  const vsix = buildVsix();
  vs = new VsCode();
  copyFileSync(join(FIXTURES, 'outline.docx'), join(vs.workspace, 'outline.docx'));
  copyFileSync(join(FIXTURES, 'slides.pptx'), join(vs.workspace, 'slides.pptx'));
  copyFileSync(join(FIXTURES, 'slides.pptx'), join(vs.workspace, 'deck-without-lo.pptx'));
  const soffice = await findSoffice();
  assert.ok(soffice, 'LibreOffice is installed (scripts/eval-deps.sh installs it)');
  mkdirSync(join(vs.root, 'bin'));
  sofficeLink = join(vs.root, 'bin', 'soffice');
  symlinkSync(soffice, sofficeLink);
  // code-server (and so the extension host) starts with this environment.
  process.env.FOLIO_SOFFICE = sofficeLink;
  vs.install(vsix);
  await vs.start();
});

after(async () => {
  await vs?.stop();
});

const shot = (name: string, body: () => Promise<void>) => vs.shot(name, body);

/**
 * Converts `file` from its tab. The palette can drop the command under load (seen in the other
 * view tests): the command's first log line says it ran; without it in 20 s it runs again.
 */
async function convert(file: string): Promise<void> {
  const ran = () => vs.folioLog().split(`Convert PDF: ${file} to markdown`).length - 1;
  const before = ran();
  await vs.closeAllEditors();
  await vs.open(file);
  for (let i = 0; ; i++) {
    await vs.command('Folio: Convert PDF to Markdown');
    const started = await until(`the conversion of ${file} to start`, 20_000, () => ran() > before).catch(() => false);
    if (started) return;
    if (i === 2) throw new Error(`the Convert command did not run for ${file} in three tries`);
    console.log(`# the Convert command did not run for ${file}; running it again`);
    await vs.open(file);
  }
}

const mdEditor = (md: string) => vs.page.locator(`.monaco-editor[data-uri$="/${md}"]`);
const mdLine = (md: string, text: string) => mdEditor(md).locator('.view-line', { hasText: text }).first();

/** The `.md` editor's selection spans the lines holding `first` … `last` (one line: `last` = `first`). */
async function editorSelects(md: string, first: string, last = first): Promise<void> {
  await until(`the ${md} editor selecting "${first}" … "${last}"`, 20_000, async () => {
    const sel = await mdEditor(md)
      .locator('.selected-text')
      .evaluateAll((els) => els.map((e) => [e.getBoundingClientRect().top, e.getBoundingClientRect().bottom] as const));
    const a = await mdLine(md, first).boundingBox();
    const b = await mdLine(md, last).boundingBox();
    if (!sel.length || !a || !b) return false;
    return (
      Math.abs(Math.min(...sel.map((x) => x[0])) - a.y) < 3 &&
      Math.abs(Math.max(...sel.map((x) => x[1])) - (b.y + b.height)) < 3
    );
  });
}

async function outlineTexts(): Promise<string[]> {
  return vs.preview().locator('#outline .outline-entry').allTextContents();
}

async function selectedEntry(): Promise<string | null> {
  return vs
    .preview()
    .locator('#outline .outline-entry.selected')
    .first()
    .textContent({ timeout: 2_000 })
    .catch(() => null);
}

test('a Word document (LibreOffice) opens its Markdown with a linked outline', async () => {
  await shot('office-1-outline', async () => {
    await convert('outline.docx');
    const pv = vs.preview();
    const expected = [
      'Field Guide to Ponds',
      'Plants at the Edge',
      'Table 1: Plant, Depth',
      'Animals in the Water',
      'Frogs <b>and</b> Toads',
    ];
    await until('the outline of outline.docx', 90_000, async () => {
      const t = await outlineTexts();
      return t.length === expected.length && t;
    });
    assert.deepEqual(await outlineTexts(), expected);
    // The document's "<b>" is text, not markup; the outline is the view (no page sheets shown).
    assert.equal(await pv.locator('#outline b').count(), 0);
    assert.equal(await pv.locator('#folio-root').getAttribute('data-source'), 'document-outline');
    assert.equal(await pv.locator('#pages').isVisible(), false);
    assert.match(
      (await pv.locator('#source-note').textContent()) ?? '',
      /Word document is shown as its outline: headings and tables/,
    );
    await mdLine('outline.md', 'Field Guide to Ponds').waitFor({ timeout: 30_000 });

    // Outline → editor: a click reveals and selects the heading in the .md.
    await pv.locator('#outline .outline-entry', { hasText: 'Animals in the Water' }).click();
    await editorSelects('outline.md', '### Animals in the Water');
    await pv.locator('#outline .outline-entry', { hasText: 'Table 1' }).click();
    await editorSelects('outline.md', '| Plant | Depth |', '| Water lily | 1.5 m |');

    // Editor → outline: the cursor in a paragraph selects its section's heading.
    await mdLine('outline.md', 'Frogs lay their eggs').click();
    await until('the cursor in the last paragraph selects its heading', 15_000, async () => {
      return (await selectedEntry()) === 'Frogs <b>and</b> Toads';
    });
    await mdLine('outline.md', 'Reeds and rushes grow').click();
    await until('the cursor under "Plants at the Edge" selects it', 15_000, async () => {
      return (await selectedEntry()) === 'Plants at the Edge';
    });
    // The keyboard: Down moves between entries, Enter reveals.
    await pv.locator('#outline .outline-entry', { hasText: 'Plants at the Edge' }).focus();
    await pv.locator('#outline .outline-entry', { hasText: 'Plants at the Edge' }).press('ArrowDown');
    await vs.page.keyboard.press('Enter');
    await editorSelects('outline.md', '| Plant | Depth |', '| Water lily | 1.5 m |');
  });
});

test('a PPTX (LibreOffice) shows its slides as pages, rendered by LibreOffice, linked to the .md', async () => {
  await shot('office-2-slides', async () => {
    await convert('slides.pptx');
    const pv = vs.preview();
    await until('the slide outline', 90_000, async () => (await outlineTexts()).length === 2);
    assert.deepEqual(await outlineTexts(), ['Slide 1: Pond Survey Results', 'Slide 2: Next Steps']);
    const t0 = Date.now();
    await until('the slides shown as pages (LibreOffice, then the page images)', 240_000, async () => {
      return (
        (await pv.locator('#folio-root').getAttribute('data-source')) === 'slides-pages' &&
        (await pv.locator('section.page .sheet[data-image="loaded"]').count()) >= 1
      );
    });
    console.log(`slides shown as pages ${Date.now() - t0} ms after the outline was there`);
    assert.match(
      (await pv.locator('#source-note').textContent()) ?? '',
      /Slides shown as pages, rendered by LibreOffice/,
    );
    assert.equal(await pv.locator('section.page').count(), 2);
    assert.equal(await pv.locator('#page-2 .page-title').textContent(), 'Slide 2');
    // The page image has the slide's shape (16:9 here), not a blank sheet.
    const img = await pv.locator('#page-1 img.page-image').evaluate((e) => {
      const i = e as HTMLImageElement;
      return { w: i.naturalWidth, h: i.naturalHeight };
    });
    assert.ok(img.w > 0 && Math.abs(img.w / img.h - 793.75 / 446.5) < 0.02, `slide image ${img.w}×${img.h}`);
    await mdLine('slides.md', 'Pond Survey Results').waitFor({ timeout: 30_000 });

    // A click on slide 2 reveals its Markdown; an outline entry does too.
    await pv.locator('#page-2 .sheet').click();
    await editorSelects('slides.md', 'Next Steps');
    await pv.locator('#outline .outline-entry', { hasText: 'Slide 1' }).click();
    await editorSelects('slides.md', 'Pond Survey Results');
    // The .md cursor in slide 2's list selects slide 2 (entry and page).
    await mdLine('slides.md', 'Survey again in September').click();
    await until('the cursor selects slide 2', 15_000, async () => (await selectedEntry()) === 'Slide 2: Next Steps');
    await pv.locator('#page-2.outline-current').waitFor({ timeout: 5_000 });
    const log = vs.folioLog();
    const line = /slides\.pptx: 2 slides rendered as pages \(LibreOffice (\d+) ms, page images (\d+) ms\)/.exec(log);
    assert.ok(line, 'the Folio log says how long LibreOffice and the page images took');
    console.log(`LibreOffice ${line[1]} ms, page images ${line[2]} ms`);
  });
});

test('without LibreOffice the slides are an outline, and the view says so', async () => {
  await shot('office-3-no-libreoffice', async () => {
    rmSync(sofficeLink);
    await convert('deck-without-lo.pptx');
    const pv = vs.preview();
    await until('the note saying LibreOffice is missing', 90_000, async () =>
      /Slides shown as an outline: LibreOffice is not installed/.test(
        (await pv.locator('#source-note').textContent()) ?? '',
      ),
    );
    assert.equal(await pv.locator('#folio-root').getAttribute('data-source'), 'slides-outline');
    assert.deepEqual(await outlineTexts(), ['Slide 1: Pond Survey Results', 'Slide 2: Next Steps']);
    assert.equal(await pv.locator('#pages').isVisible(), false);
    await mdLine('deck-without-lo.md', 'Next Steps').waitFor({ timeout: 30_000 });
    await pv.locator('#outline .outline-entry', { hasText: 'Slide 2' }).click();
    await editorSelects('deck-without-lo.md', 'Next Steps');
  });
});
