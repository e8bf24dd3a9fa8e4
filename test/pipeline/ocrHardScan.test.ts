/**
 * Issue 31's harder scanned twin (eval/gen/multicol `multicol-scan-hard`): the committed
 * three-column Chromium fixture scanned by the set's own generator with the set's seed for it
 * (turned 0.66° counter-clockwise, Gaussian blur, noise, JPEG q75), page 1 converted through the
 * whole pipeline with OCR.
 *  - The centred author line sits over the middle column under the title: the recognizer's line
 *    order (title, author, columns) is the reading order, not the middle column's first line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SCAN_PROFILES } from '../../eval/gen/multicol/scan';
import { multicolFixture, scannedTwinMarkdown } from '../helpers/scannedTwin';

const FIXTURE = multicolFixture('threecol.chromium.pdf');
/** The seed build.ts gives threecol × Chromium (third document, second producer). */
const SEED = 8;

test('a hard scanned twin (skew 0.66°, blur, JPEG) of a three-column page keeps title, author and columns in order', async () => {
  const [md] = (await scannedTwinMarkdown(FIXTURE, SEED, SCAN_PROFILES.hard, [1])) as [string];
  const blocks = md.split(/\n\s*\n/).map((b) => b.replace(/\s+/g, ' ').replace(/^#+ /, '').trim());
  const at = (s: string) => {
    const i = blocks.findIndex((b) => b.includes(s));
    assert.ok(i >= 0, `"${s}" not found in the OCR Markdown:\n${md.slice(0, 3000)}`);
    return i;
  };
  // Title, author line, then column 1's first paragraph and the section after it.
  const order = ['Records from the River', 'Writer and B. Reader', 'Reaches in structure only', '1 Introduction'];
  for (let k = 1; k < order.length; k++)
    assert.ok(at(order[k]) > at(order[k - 1]), `"${order[k]}" should follow "${order[k - 1]}":\n${md.slice(0, 3000)}`);
  // The author line is a block of its own, next to the title, not inside a column's text.
  assert.equal(at('Writer and B. Reader'), at('Records from the River') + 1);
});
