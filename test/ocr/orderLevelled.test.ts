/**
 * Issue 40 item 3: the OCR reading order on a page the ink has levelled. `threecol` typeset by
 * LibreOffice with columns 0.15 in apart, scanned by the narrow twins' generator with the set's
 * seed for it (eval/gen/multicol `multicol-scan-narrow`; turned 0.61°). Page 4 is the last page:
 * the first column runs down the page, the second holds only the nine lines that end the text.
 * The detector's rectangles of short line pieces read level on the tilted sheet, so in the
 * upright frame (levelled by the ink, skew.ts) they read the tilt itself; the reading order
 * levelled the page again by their median angle, which turned it back by 0.61°, the 0.15 in
 * gutter closed over the page's height, and the second column's lines were read in the middle
 * of the first (after its first paragraph break).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SCAN_PROFILES } from '../../eval/gen/multicol/scan';
import { multicolFixture, scannedTwinOcr } from '../helpers/scannedTwin';

const FIXTURE = multicolFixture('threecol.libreoffice.gutter3.81mm.pdf');
/** The seed build.ts gives threecol × LibreOffice's narrow twin (third document, third producer, + 4000). */
const SEED = 4009;

test('a short last column is read after the full column beside it, on a page the ink levelled', async () => {
  const res = await scannedTwinOcr(FIXTURE, SEED, SCAN_PROFILES.narrow, 4);
  assert.ok(Math.abs(res.skew) >= 0.4, `the page is levelled by its ink (skew ${res.skew})`);
  const lines = res.lines.map((l) => l.text.replace(/\s+/g, ' '));
  const dump = lines.map((t, i) => `${i}: ${t}`).join('\n');
  const at = (re: RegExp) => {
    const i = lines.findIndex((t) => re.test(t));
    assert.ok(i >= 0, `${re} was not read:\n${dump}`);
    return i;
  };
  // The first column: a paragraph ends, the next opens; its last line ends the page's first column.
  const end = at(/^distribution more while large/);
  const next = at(/^Among/);
  const last = at(/^while,$/);
  const second = at(/^records village river/);
  assert.ok(end < next && next < second, `the second column is read inside the first:\n${dump}`);
  assert.ok(last < second, `the first column's last line comes after the second column's first:\n${dump}`);
});
