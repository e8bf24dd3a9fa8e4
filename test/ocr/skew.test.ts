/**
 * Issue 40 item 3: the page is deskewed before layout finds tables and columns, so the skew must
 * be right. It is read from the ink of the text lines at full resolution (server/ocr/skew.ts), not
 * from each line rectangle's own angle: on a narrow-gutter Chromium twin the justified lines come
 * as short pieces whose rectangles read level, their median said 0° on a page turned 0.37°, the
 * page was read tilted and its prose taken for a table. The tilts asserted are the ones the
 * generator drew for these seeds (eval/gen/multicol/build.ts: narrow twins seed + 4000).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inkSkew } from '../../server/ocr/skew';
import { SCAN_PROFILES, type ScanProfile } from '../../eval/gen/multicol/scan';
import { multicolFixture, scannedTwinOcr } from '../helpers/scannedTwin';

async function twinSkew(pdf: string, seed: number, profile: ScanProfile, page: number): Promise<number> {
  return (await scannedTwinOcr(multicolFixture(pdf), seed, profile, page)).skew;
}

test('a narrow-gutter Chromium twin turned -0.37° is deskewed by -0.37° (its line pieces read level)', async () => {
  const skew = await twinSkew('twocol-a.chromium.gutter3.81mm.pdf', 4002, SCAN_PROFILES.narrow, 1);
  assert.ok(Math.abs(skew - -0.374) <= 0.08, `read ${skew}°`);
});

test("a page whose wide figure crosses both columns is read by its text's tilt, not the figure's strokes", async () => {
  // Issue 31's hard twin of the three-column Chromium page, page 2 (turned +0.80°): a profile of
  // the whole detector map read it as -0.48°.
  const skew = await twinSkew('threecol.chromium.pdf', 8, SCAN_PROFILES.hard, 2);
  assert.ok(Math.abs(skew - 0.798) <= 0.08, `read ${skew}°`);
});

test('inkSkew: rows of ink turned by an angle give that angle; level rows give 0', () => {
  for (const deg of [0.37, -0.61, 0, 2.5]) {
    const t = Math.tan((deg * Math.PI) / 180);
    const xs: number[] = [];
    const ys: number[] = [];
    const starts: number[] = [];
    // Two columns of 40 text rows (an x-height band 14 px tall every 33 px, the right column's
    // rows half a row lower), words with gaps; each row of each column one box.
    for (let row = 0; row < 40; row++)
      for (const [x0, x1, drop] of [
        [100, 780, 0],
        [820, 1500, 16],
      ]) {
        starts.push(xs.length);
        for (let x = x0; x < x1; x++) {
          if ((x + row * 37) % 90 < 12) continue; // word spaces
          for (let dy = 0; dy < 14; dy++) {
            xs.push(x);
            ys.push(200 + drop + row * 33 + dy + x * t);
          }
        }
      }
    const got = inkSkew({ xs: Float32Array.from(xs), ys: Float32Array.from(ys), starts }, 10);
    assert.ok(Math.abs(got - deg) <= 0.02, `${deg}° read as ${got}°`);
  }
});
