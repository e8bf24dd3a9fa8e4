/**
 * Issue 2's corpus-quality requirement, run in CI: the CLI converts every PDF of
 * docling-src-rendered (and selfmade-example, reported only) in one call with --jobs 2; the
 * same test runs plain `pdftotext` on the same files; per-file normalized edit distance (NED)
 * and heading F1 are printed, and on docling-src-rendered Folio's median AND mean NED must be
 * below pdftotext's and its heading F1 (mean over files with headings) at least 0.85.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpusRoot, inSets, readManifest } from '../../eval/corpus';
import { mean, median, runPeer, type FileResult } from '../../eval/evaluate';
import { folioPeer } from '../../eval/peers/folio';
import { pdftotextMissing, pdftotextPeer } from '../../eval/peers/pdftotext';
import { fmt, textTable } from '../../eval/report/textTable';
import { repoRoot } from '../helpers/corpus';

const MAIN = 'docling-src-rendered';
const REPORTED = 'selfmade-example';

test(
  'corpus quality: Folio beats pdftotext on NED and finds headings (docling-src-rendered)',
  { timeout: 15 * 60_000 },
  async (t) => {
    const missing = pdftotextMissing();
    assert.equal(missing, undefined, `${missing} — the quality test compares Folio with pdftotext in the same run`);
    const repo = repoRoot();
    const folio = folioPeer(repo);
    assert.equal(folio.unavailable(), undefined, folio.unavailable());
    const entries = inSets(readManifest(corpusRoot(repo)), [MAIN, REPORTED]).filter((e) => e.gt);
    assert.ok(
      entries.filter((e) => e.set === MAIN).length >= 60,
      `expected the 65 ${MAIN} PDFs with ground truth, found ${entries.length}`,
    );

    const work = mkdtempSync(join(tmpdir(), 'folio-quality-'));
    let f: FileResult[];
    let p: FileResult[];
    try {
      f = (await runPeer(folio, entries, work, { jobs: 2, timeoutMs: 60_000 })).files;
      p = (await runPeer(pdftotextPeer(false), entries, work, { jobs: 2, timeoutMs: 30_000 })).files;
    } finally {
      rmSync(work, { recursive: true, force: true });
    }

    const rows = f.map((x, i) => [
      x.rel,
      fmt(x.scores.ned),
      fmt(p[i].scores.ned),
      fmt(x.scores.headingF1),
      x.error ?? '',
    ]);
    // One diagnostic per line: the reporter escapes newlines inside a diagnostic.
    for (const l of textTable(['file', 'NED Folio', 'NED pdftotext', 'heading F1 Folio', 'Folio error'], rows).split(
      '\n',
    ))
      t.diagnostic(l);

    const summary = (set: string) => {
      const fs = f.filter((x) => x.set === set);
      const ps = p.filter((x) => x.set === set);
      const heads = fs.map((x) => x.scores.headingF1).filter((v): v is number => v !== undefined);
      return {
        folioMedian: median(fs.map((x) => x.scores.ned)),
        folioMean: mean(fs.map((x) => x.scores.ned)),
        pdftotextMedian: median(ps.map((x) => x.scores.ned)),
        pdftotextMean: mean(ps.map((x) => x.scores.ned)),
        headingF1: mean(heads),
        withHeadings: heads.length,
        failed: fs.filter((x) => x.error !== undefined).map((x) => `${x.rel}: ${x.error}`),
      };
    };
    const s = summary(MAIN);
    const r = summary(REPORTED);
    const line = (name: string, x: typeof s) =>
      `${name}: NED median Folio ${fmt(x.folioMedian)} vs pdftotext ${fmt(x.pdftotextMedian)}; mean ${fmt(x.folioMean)} vs ${fmt(x.pdftotextMean)}; heading F1 ${fmt(x.headingF1)} over ${x.withHeadings} files`;
    t.diagnostic(line(MAIN, s));
    t.diagnostic(line(`${REPORTED} (reported, not asserted)`, r));

    assert.deepEqual(s.failed, [], `Folio failed to convert ${MAIN} files`);
    assert.ok(
      s.folioMedian < s.pdftotextMedian,
      `median NED: Folio ${fmt(s.folioMedian, 4)} must be below pdftotext ${fmt(s.pdftotextMedian, 4)}`,
    );
    assert.ok(
      s.folioMean < s.pdftotextMean,
      `mean NED: Folio ${fmt(s.folioMean, 4)} must be below pdftotext ${fmt(s.pdftotextMean, 4)}`,
    );
    assert.ok(s.withHeadings > 0, 'no ground-truth file with headings: the corpus is not the expected one');
    assert.ok(s.headingF1 >= 0.85, `heading F1 ${fmt(s.headingF1)} must be at least 0.85`);
  },
);
