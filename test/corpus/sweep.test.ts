/**
 * CI's slice of the robustness sweep (issue 4): a fixed, seeded sample of 100 files from the
 * real-world sets, each through the CLI in its own process with a time limit. Every file must
 * give Markdown or a clear error: 0 crashes and 0 timeouts. The full sweep is `npm run sweep`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpusRoot, SWEEP_SETS } from '../../eval/corpus';
import { sweepSummary } from '../../eval/sweep/report';
import { listSweepFiles, runSweep } from '../../eval/sweep/runSweep';
import { seededSample } from '../../eval/sweep/sample';
import { repoRoot } from '../helpers/corpus';

const SAMPLE = 100;
const SEED = 42;
const TIMEOUT_MS = 60_000;
// Scanned pages go through OCR (target ≤ 3 s/page on an idle machine).
const PER_PAGE_MS = 2_000;

test(
  `sweep sample: ${SAMPLE} real-world PDFs convert or fail clearly, no crash, no timeout`,
  { timeout: 20 * 60_000 },
  async (t) => {
    const repo = repoRoot();
    const all = listSweepFiles(corpusRoot(repo), SWEEP_SETS);
    assert.ok(all.length >= 1000, `expected about 1,070 sweep PDFs, found ${all.length}`);
    const files = seededSample(all, SAMPLE, SEED, (f) => f.rel);
    const work = mkdtempSync(join(tmpdir(), 'folio-sweep-test-'));
    let results;
    try {
      results = await runSweep(files, {
        repo,
        parallel: 2,
        timeoutMs: TIMEOUT_MS,
        perPageMs: PER_PAGE_MS,
        workDir: work,
      });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    for (const l of sweepSummary(results, `sweep sample (${SAMPLE} files, seed ${SEED})`).split('\n')) t.diagnostic(l);
    const bad = results
      .filter((r) => r.outcome === 'crash' || r.outcome === 'timeout')
      .map((r) => `${r.outcome} ${r.rel}: ${r.reason}`);
    assert.deepEqual(bad, [], `${bad.length} crash(es)/timeout(s)`);
    // Most real-world files are readable: a sweep where nearly nothing converts means the CLI is broken.
    assert.ok(
      results.filter((r) => r.outcome === 'converted' || r.outcome === 'partial').length >= SAMPLE * 0.7,
      'fewer than 70% of the sample converted',
    );
  },
);
