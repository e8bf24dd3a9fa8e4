/**
 * CI's mutation fuzzing (issue 4): 200 fixed-seed mutations (byte flips, truncations, deleted
 * objects, zeroed ranges) of a few small PDFs, all sent to ONE real backend process. The
 * backend answers every case within the limit and never dies; a PDF with one damaged page
 * still gives the other pages.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpusRoot } from '../../eval/corpus';
import { fuzzSummary } from '../../eval/fuzz/report';
import { fuzzCases, runFuzz } from '../../eval/fuzz/runFuzz';
import { objectSpans } from '../../eval/fuzz/mutate';
import { CORPUS_SOURCES, GENERATED, generatedThreePages, sourceReader } from '../../eval/fuzz/sources';
import { textPage } from '../../eval/pdf/makePdf';
import { BackendProcess } from '../helpers/backend';
import { repoRoot } from '../helpers/corpus';

const CASES = 200;
const SEED = 1000;

test(`fuzz: ${CASES} mutated PDFs, the backend survives and answers every one`, { timeout: 15 * 60_000 }, async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'folio-fuzz-test-'));
  try {
    const { results, restarts } = await runFuzz(fuzzCases([GENERATED, ...CORPUS_SOURCES], CASES, SEED), {
      workDir: work,
      sourceBytes: sourceReader(corpusRoot(repoRoot())),
      // A mutation that breaks a font sends the page to OCR: seconds, not a hang.
      timeoutMs: 90_000,
    });
    for (const l of fuzzSummary(results, restarts, `fuzz (${CASES} cases, seed ${SEED})`).split('\n')) t.diagnostic(l);
    const bad = results
      .filter((r) => r.outcome === 'crash' || r.outcome === 'hang')
      .map((r) => `${r.outcome} case ${r.index} ${r.source} ${r.kind} seed ${r.seed} (${r.note}): ${r.detail}`);
    assert.deepEqual(bad, [], `${bad.length} case(s) crashed or hung the backend`);
    assert.equal(restarts, 0);
    // The mutations must actually bite: some cases fail, and some still convert.
    assert.ok(
      results.some((r) => r.outcome === 'clear-error'),
      'no mutation produced an error: the mutations are not applied',
    );
    assert.ok(
      results.some((r) => r.outcome === 'converted' || r.outcome === 'partial'),
      'no mutated file converted at all',
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('fuzz: a PDF whose page 2 content stream is deleted still gives pages 1 and 3', { timeout: 120_000 }, async () => {
  const src = generatedThreePages();
  // Objects: 1 catalog, 2 pages, 3 font, then (page, content) pairs: page 2's content is object 7.
  const span = objectSpans(src).find((o) => o.num === 7);
  assert.ok(span, 'generated PDF has no object 7');
  const work = mkdtempSync(join(tmpdir(), 'folio-fuzz-page-'));
  const file = join(work, 'page2-damaged.pdf');
  writeFileSync(file, Buffer.concat([src.subarray(0, span.start), src.subarray(span.end)]));
  const backend = await BackendProcess.start();
  try {
    const summary = await backend.convert({ uri: file }).result;
    assert.deepEqual(
      summary.pagesDone.filter((p) => p !== 2),
      [1, 3],
    );
    for (const n of [1, 3]) {
      const first = textPage(n, 12).lines[0];
      assert.ok(summary.markdown.includes(first), `page ${n}'s first line is missing from the Markdown`);
    }
    assert.ok(
      !summary.markdown.includes(textPage(2, 12).lines[0]),
      "page 2's text cannot be there: its content stream was deleted",
    );
  } finally {
    await backend.stop();
    rmSync(work, { recursive: true, force: true });
  }
});
