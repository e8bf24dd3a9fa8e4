/**
 * Builds the multi-column development set (issue 15) into its cache and lists it:
 *   node out/scripts/eval/gen/multicol.main.js [--quick] [--scans]
 * (--scans: every scanned set, at 150, 200 and 300 dpi and the hard twins of issue 31)
 */
import { buildMulticolSet, SCAN_SETS } from './multicol/build';

buildMulticolSet({
  quick: process.argv.includes('--quick'),
  scans: process.argv.includes('--scans') ? SCAN_SETS.map((s) => s.name) : [],
}).then(
  (es) => {
    for (const e of es) console.log(`${e.set}\t${e.pdf}\t${e.gt}`);
    if (es.length === 0) throw new Error('the multi-column set is empty');
  },
  (e) => {
    console.error(e instanceof Error ? e.message : String(e));
    process.exitCode = 2;
  },
);
