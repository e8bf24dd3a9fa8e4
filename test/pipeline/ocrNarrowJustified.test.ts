/**
 * Issue 40 item 3, LibreOffice's narrow-gutter twin: `twocol-a` typeset by LibreOffice with
 * columns 0.15 in apart, scanned by the narrow twins' generator with the set's seed for it
 * (eval/gen/multicol `multicol-scan-narrow`: 200 dpi, tilt, blur, noise, JPEG q75). LibreOffice
 * stretches the spaces of a narrow justified column to two or three ems; on page 1 the wide
 * spaces of three left-column and right-column rows lined up, alignment took the words for a
 * 4-column table across the gutter, and a paragraph of the left column was read after the
 * right column's. The words are pieces of justified lines (from a column's left edge to its
 * right edge, evenly spaced): prose. Look-alike on page 2: the real table (station, numbers,
 * uneven gaps) stays a table.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SCAN_PROFILES } from '../../eval/gen/multicol/scan';
import { multicolFixture, scannedTwinMarkdown } from '../helpers/scannedTwin';

const FIXTURE = multicolFixture('twocol-a.libreoffice.gutter3.81mm.pdf');
/** The seed build.ts gives twocol-a × LibreOffice's narrow twin (first document, third producer, + 4000). */
const SEED = 4003;

test("a narrow justified column's wide spaces are no table; the scan's real table stays one", async () => {
  const [one, two] = (await scannedTwinMarkdown(FIXTURE, SEED, SCAN_PROFILES.narrow, [1, 2])) as [string, string];
  const tables1 = one.split('\n').filter((l) => l.startsWith('|'));
  assert.deepEqual(tables1, [], `page 1 has a table:\n${tables1.join('\n')}`);
  const flat = one.replace(/\s+/g, ' ');
  // The left column's paragraph reads on where its wide-spaced lines were taken for cells…
  assert.match(flat, /window careful\.? \.? ?Gives its public/, `the paragraph is broken:\n${one}`);
  assert.match(flat, /leaves understanding surrounding circumstances/, `the paragraph is broken:\n${one}`);
  // …before the right column's section heading.
  assert.ok(
    flat.indexOf('leaves understanding') < flat.indexOf('Observations along the river'),
    `the left column's paragraph is read after the right column:\n${one}`,
  );
  const rows = two.split('\n').filter((l) => l.startsWith('|'));
  assert.ok(
    rows.some((r) => /North 2 \| 10 \| 49\.5 \| 2\.31/.test(r)),
    `the real table on page 2 was lost:\n${two}`,
  );
});
