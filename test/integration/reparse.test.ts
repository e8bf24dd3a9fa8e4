/**
 * `folio/reparseRegion` through the real backend process: the pipeline re-reads exactly the box
 * with the chosen class; with the VLM engine (tiny fixture model) the class-specific prompt runs
 * on the crop; the request's version is echoed.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { BackendProcess } from '../helpers/backend';
import { repoRoot } from '../helpers/corpus';
import { join } from 'node:path';
import { tinyModels } from '../vlm/tinyModels';
import type { PageResult, Region } from '../../common/protocol';

let backend: BackendProcess;
let fx: ReturnType<typeof tinyModels>;
const pdf = () => pathToFileURL(join(repoRoot(), 'test', 'fixtures', 'sample.pdf')).href;

before(async () => {
  backend = await BackendProcess.start();
  fx = tinyModels();
});
after(async () => {
  await backend.stop();
  fx?.cleanup();
});

async function firstPage(): Promise<PageResult> {
  const run = backend.convert({ uri: pdf(), pages: '1' });
  await run.result;
  return run.pages[0].page;
}

function longestText(page: PageResult): Region {
  const texts = page.regions.filter((r) => r.cls === 'text' && r.mdRange);
  texts.sort((a, b) => b.mdRange!.end - b.mdRange!.start - (a.mdRange!.end - a.mdRange!.start));
  return texts[0];
}

test('pipeline: a paragraph box shrunk to its first line re-reads only that line', async () => {
  const page = await firstPage();
  const para = longestText(page);
  const full = page.markdown.slice(para.mdRange!.start, para.mdRange!.end);
  // The first line: the top ~1.2 line heights of the box.
  const lineBox = { ...para.bbox, y1: para.bbox.y0 + 13 };
  const res = await backend.reparse({ uri: pdf(), version: 7, page: 1, regionId: para.id, bbox: lineBox, cls: 'text' });
  assert.equal(res.version, 7);
  assert.equal(res.regionId, para.id);
  assert.equal(res.engine, 'pipeline');
  assert.ok(
    res.markdown.length > 10 && res.markdown.length < full.length * 0.6,
    `first line only: "${res.markdown}" of "${full}"`,
  );
  assert.ok(
    full.replace(/\s+/g, ' ').startsWith(res.markdown.replace(/\s+/g, ' ').slice(0, 20)),
    'it is the start of the paragraph',
  );
  assert.match(res.doctags, /^<text><loc_\d+><loc_\d+><loc_\d+><loc_\d+>/);
});

test('pipeline: the same box as code becomes a fenced block, as a heading a heading', async () => {
  const page = await firstPage();
  const para = longestText(page);
  const code = await backend.reparse({
    uri: pdf(),
    version: 1,
    page: 1,
    regionId: para.id,
    bbox: para.bbox,
    cls: 'code',
  });
  assert.match(code.markdown, /^```[^\n]*\n[\s\S]+\n```$/);
  assert.match(code.doctags, /^<code>/);
  const head = await backend.reparse({
    uri: pdf(),
    version: 1,
    page: 1,
    regionId: para.id,
    bbox: para.bbox,
    cls: 'section_header',
  });
  assert.match(head.markdown, /^#+ \S/);
});

test('vlm: reparse runs the VLM on the crop (tiny fixture model) and reports the engine', async () => {
  const page = await firstPage();
  const para = longestText(page);
  const res = await backend.reparse({
    uri: pdf(),
    version: 3,
    page: 1,
    regionId: para.id,
    bbox: para.bbox,
    cls: 'text',
    options: { engine: 'vlm', modelsDir: fx.root, providers: ['cpu'] },
  });
  assert.equal(res.engine, 'vlm', res.warnings.join('; '));
  assert.ok(res.doctags.length > 0);
  const missing = await backend.reparse({
    uri: pdf(),
    version: 4,
    page: 1,
    regionId: para.id,
    bbox: para.bbox,
    cls: 'text',
    options: { engine: 'vlm', modelsDir: join(fx.root, 'nowhere'), providers: ['cpu'] },
  });
  assert.equal(missing.engine, 'pipeline');
  assert.match(missing.warnings.join(' '), /VLM failed/);
});
