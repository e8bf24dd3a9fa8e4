/** Page-range planning for queue jobs: every selected page in exactly one range, each range with its furniture window. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planRanges, toSelection } from '../../server/queue/ranges';

test('ranges cover the selection once, in order, with two pages of context each side', () => {
  const sel = Array.from({ length: 10 }, (_, i) => i + 1);
  const r = planRanges(sel, 4, 2);
  assert.deepEqual(
    r.map((x) => x.pages),
    [
      [1, 2, 3, 4],
      [5, 6, 7, 8],
      [9, 10],
    ],
  );
  assert.deepEqual(
    r.map((x) => x.context),
    [
      [1, 2, 3, 4, 5, 6],
      [3, 4, 5, 6, 7, 8, 9, 10],
      [7, 8, 9, 10],
    ],
  );
});

test('context follows the selection, not page numbers (a gap is not a neighbour)', () => {
  const r = planRanges([1, 2, 7, 8, 9], 2, 2);
  assert.deepEqual(r[1], { pages: [7, 8], context: [1, 2, 7, 8, 9] });
  assert.equal(toSelection([1, 2, 7, 8, 9]), '1-2,7-9');
  assert.equal(toSelection([4]), '4');
  assert.throws(() => planRanges([1], 0, 2), /range size/);
});
