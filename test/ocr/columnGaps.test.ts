/**
 * Issue 40 item 3: OCR lines cut at the column gaps of the full-resolution page. The page is
 * `twocol-c` typeset by XeLaTeX with columns only 2.5 mm apart, scanned by the narrow twins'
 * generator (eval/gen/multicol `multicol-scan-narrow`: 200 dpi, tilt 0.3–0.8°, light blur, noise,
 * JPEG q75). The detector, working on the page shrunk to 960 px, joins the left column's last
 * line to the right column's line beside it; before the cut that one line read both columns.
 * Look-alikes on the same page: justified lines whose wide spaces end where a word starts in a
 * line or two nearby stay whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cutDecoded } from '../../server/ocr/columnGaps';
import type { DecodedLine } from '../../server/ocr/ctc';
import { SCAN_PROFILES } from '../../eval/gen/multicol/scan';
import { multicolFixture, scannedTwinOcr } from '../helpers/scannedTwin';

const FIXTURE = multicolFixture('twocol-c.xelatex.gutter2.5mm.pdf');

test('a line joined across a 2.5 mm gutter is cut into its columns; wide spaces inside a column are not', async () => {
  const res = await scannedTwinOcr(FIXTURE, 7, SCAN_PROFILES.narrow, 1);
  const lines = res.lines.map((l) => l.text.replace(/\s+/g, ' '));
  const dump = lines.join('\n');
  const left = lines.find((t) => t.includes('between account process'));
  assert.ok(left, `the left column's line was not read:\n${dump}`);
  assert.ok(!/Follows/.test(left), `the left column's line still holds the right column's words: "${left}"`);
  assert.ok(
    lines.some((t) => /^are\. Follows each records/.test(t)),
    `the right column's line is not a line of its own:\n${dump}`,
  );
  // Each piece is boxed in its own column: the left one ends, the right one starts, at the gutter (mid-page).
  const l = res.lines.find((x) => x.text.includes('between account process'))!;
  const r = res.lines.find((x) => /^are\. Follows/.test(x.text))!;
  const mid = res.width / 2;
  assert.ok(
    l.upright.x1 < mid + 0.03 * res.width && r.upright.x0 > mid - 0.03 * res.width,
    `the pieces are not boxed in their columns: ${JSON.stringify([l.upright, r.upright])}`,
  );
  for (const whole of [
    '2.1 Sampling',
    'steady process general',
    'summer environmental however',
    'agricultural how',
    'other process sample',
    'within within general',
    'against population',
  ])
    assert.ok(
      lines.some((t) => t.includes(whole)),
      `"${whole}" was cut apart inside a column:\n${dump}`,
    );
});

test('cutDecoded: pieces keep their characters and steps; a cut leaving too few characters is skipped', () => {
  const chars = 'abc def ghi'.split('').map((ch, i) => ({ ch, t0: 2 * i, t1: 2 * i + 1, prob: 0.9, spaceBefore: 0 }));
  const dl: DecodedLine = { chars, steps: 22, score: 0.9 };
  const [a, b] = cutDecoded(dl, [15.5 / 22]);
  assert.equal(a.dl.chars.map((c) => c.ch).join(''), 'abc def');
  assert.equal(b.dl.chars.map((c) => c.ch).join(''), 'ghi');
  assert.equal(b.dl.chars[0].t0, 1, "steps counted from the piece's start");
  assert.equal(a.f0, 0);
  assert.equal(b.f1, 1);
  assert.ok(a.f1 >= b.f0, 'the pieces meet at the cut');
  assert.equal(cutDecoded(dl, [3 / 22]).length, 1, 'one character on the left is no column');
});
