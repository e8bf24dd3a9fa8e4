/**
 * `folio convert --engine vlm --models <fixture dir>` end to end: the built CLI (dist/cli.js)
 * renders a real PDF page, the VLM worker runs the tiny fixture, and the page result carries
 * the VLM's DocTags, its Markdown and the provider actually used (CUDA asked, CPU used).
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { corpusPath, repoRoot } from '../helpers/corpus';
import { tinyModels } from './tinyModels';

const run = promisify(execFile);
let fx: ReturnType<typeof tinyModels>;
before(() => {
  fx = tinyModels();
});
after(() => fx?.cleanup());

test('folio convert --engine vlm on a real PDF page', async () => {
  const cli = join(repoRoot(), 'dist', 'cli.js');
  assert.ok(existsSync(cli), 'dist/cli.js is built (npm run build)');
  const out = join(fx.root, 'page.json');
  const pdf = corpusPath('selfmade-example/sample.libreoffice.pdf');
  const { stdout, stderr } = await run(
    process.execPath,
    [
      cli,
      'convert',
      pdf,
      '--pages',
      '1',
      '--engine',
      'vlm',
      '--models',
      fx.root,
      '--providers',
      'cuda,cpu',
      '--format',
      'json',
      '-o',
      out,
    ],
    { timeout: 120_000 },
  );
  assert.match(stdout + stderr, /provider cpu/);
  const summary = JSON.parse(readFileSync(out, 'utf8'));
  const page = summary.pages[0];
  assert.equal(page.engine, 'vlm');
  assert.equal(page.provider, 'cpu');
  assert.match(
    page.doctags,
    /^<section_header_level_1><loc_40><loc_30><loc_460><loc_60>Tiny fixture<\/section_header_level_1><text>/,
  );
  assert.match(page.markdown, /^#+ Tiny fixture\n\npage text/);
  assert.ok(page.regions.length >= 2);
});
