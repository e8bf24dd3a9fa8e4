/**
 * The generated multi-column development set (issue 15) as eval entries: `multicol` (born
 * digital) and `multicol-scan` (the same pages scanned), one set per producer
 * (`multicol/xelatex`, …), built on demand by eval/gen/multicol/build.ts. Also the per-producer
 * check of the targets.
 */
import { statSync } from 'node:fs';
import type { CorpusEntry } from './corpus';
import type { Aggregate } from './evaluate';
import { buildMulticolSet, HARD_SCAN_SET, NARROW_SCAN_SET, NARROW_SET, SCAN_SETS } from './gen/multicol/build';

/**
 * Born-digital, then scanned at 200 (`multicol-scan`), 150 and 300 dpi, then the hard twins (issue
 * 31), then issue 40's narrow-gutter pages born digital and their scanned twins.
 */
export const MULTICOL_SETS = [
  'multicol',
  ...SCAN_SETS.filter((s) => !s.narrow).map((s) => s.name),
  NARROW_SET,
  NARROW_SCAN_SET,
] as const;

/** How far above born-digital NED a scanned set may be: 0.05 (issue 15, 23), the hard and narrow twins 0.03 (issues 31, 40). */
const scanMargin = (set: string): number => (set === HARD_SCAN_SET || set === NARROW_SCAN_SET ? 0.03 : 0.05);

/** Entries of the requested multicol sets (none when no multicol set is asked for). */
export async function multicolEntries(sets: string[], quick: boolean): Promise<CorpusEntry[]> {
  const born = sets.includes('multicol');
  const narrow = sets.includes(NARROW_SET);
  const scans = SCAN_SETS.map((s) => s.name).filter((n) => sets.includes(n));
  if (!born && !narrow && scans.length === 0) return [];
  const es = await buildMulticolSet({ quick, scans, narrow });
  return es
    .filter((e) => sets.includes(e.set.split('/')[0]!))
    .map((e) => ({ rel: e.rel, pdf: e.pdf, gt: e.gt, set: e.set, bytes: statSync(e.pdf).size }));
}

/**
 * Issue 15's targets per producer: Folio's NED mean and median below PyMuPDF's and pdf2md's,
 * reading order ≥ 0.99; scanned NED within 0.05 of born-digital at every resolution (issue 23
 * item 9: 150, 200 and 300 dpi), the hard twins within 0.03 (issue 31 class 6). One line per check.
 */
export function multicolTargets(aggs: Aggregate[]): string[] {
  const out: string[] = [];
  const get = (set: string, peer: string) => aggs.find((a) => a.set === set && a.peer === peer);
  // Born-digital sets: the default pages and the narrow-gutter ones, each against its own scans.
  const sets = [...new Set(aggs.map((a) => a.set))].filter(
    (s) => s.startsWith('multicol/') || s.startsWith(`${NARROW_SET}/`),
  );
  for (const set of sets) {
    const base = set.split('/')[0]!;
    const f = get(set, 'Folio');
    if (!f) continue;
    const ned = f.metrics.ned?.mean ?? NaN;
    for (const peer of ['PyMuPDF', 'pdf2md']) {
      const p = get(set, peer);
      if (!p) continue;
      const ok = ned < (p.metrics.ned?.mean ?? NaN) && f.nedMedian < p.nedMedian;
      out.push(
        `${ok ? 'met' : 'NOT met'}: ${set} NED mean/median Folio ${ned.toFixed(4)}/${f.nedMedian.toFixed(4)} vs ${peer} ${(p.metrics.ned?.mean ?? NaN).toFixed(4)}/${p.nedMedian.toFixed(4)}`,
      );
    }
    const ro = f.metrics.readingOrder?.mean;
    if (ro !== undefined)
      out.push(`${ro >= 0.99 ? 'met' : 'NOT met'}: ${set} reading order ${ro.toFixed(4)} (target ≥ 0.99)`);
    for (const s of SCAN_SETS.filter((x) => (x.narrow ?? false) === (base === NARROW_SET))) {
      const scan = get(set.replace(`${base}/`, `${s.name}/`), 'Folio');
      if (!scan) continue;
      const d = (scan.metrics.ned?.mean ?? NaN) - ned;
      const m = scanMargin(s.name);
      const what = s.profile !== 'plain' ? `${s.name} (${s.dpi} dpi)` : `scanned at ${s.dpi} dpi`;
      out.push(
        `${d <= m ? 'met' : 'NOT met'}: ${set} ${what} NED ${(scan.metrics.ned?.mean ?? NaN).toFixed(4)} vs born-digital ${ned.toFixed(4)} (within ${m})`,
      );
    }
  }
  return out;
}
