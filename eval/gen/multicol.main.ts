/**
 * Builds the multi-column development set (issue 15) into its cache and lists it:
 *   node out/scripts/eval/gen/multicol.main.js [--quick] [--scans]   (--scans: at 150, 200 and 300 dpi)
 */
import { buildMulticolSet } from './multicol/build';
import { SCAN_DPIS } from './multicol/scan';

buildMulticolSet({
  quick: process.argv.includes('--quick'),
  scans: process.argv.includes('--scans') ? SCAN_DPIS : [],
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
