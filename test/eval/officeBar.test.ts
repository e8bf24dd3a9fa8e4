/**
 * Issue 41's bar in the office set (eval/office/run.ts `judgeBar`): per format the raw NED mean,
 * kept differences included and a failed document counted 1, at most NED_BAR; judged on a full
 * run, printed but not judged on a partial one (`--quick`, `--only`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeBar, NED_BAR } from '../../eval/office/run';

const doc = (format: string, ned?: number) => ({ format, scores: ned === undefined ? undefined : { ned } });

test('the bar: a format whose raw NED mean is above it fails a full run, one at or under it passes', () => {
  assert.equal(NED_BAR, 0.05);
  const under = judgeBar([doc('docx', 0), doc('docx', 0.1), doc('xlsx', 0.05)], false);
  assert.equal(under.failed, false);
  assert.deepEqual(under.lines, ['docx 0.0500 met', 'xlsx 0.0500 met']);
  // xlsx at 0.0518 (Docling's ten xlsx documents with Folio's spans and the whole thread).
  const over = judgeBar(
    [doc('docx', 0), ...Array.from({ length: 9 }, () => doc('xlsx', 0.0578)), doc('xlsx', 0)],
    false,
  );
  assert.equal(over.failed, true);
  assert.ok(over.lines.includes('xlsx 0.0520 NOT met'), over.lines.join('\n'));
  assert.ok(over.lines.includes('docx 0.0000 met'));
});

test('the bar: a document Folio failed on counts NED 1; a partial run is printed, never judged', () => {
  const failedDoc = judgeBar([doc('csv', 0), doc('csv')], false);
  assert.equal(failedDoc.failed, true);
  assert.deepEqual(failedDoc.lines, ['csv 0.5000 NOT met']);
  const partial = judgeBar([doc('xlsx', 0.16)], true);
  assert.equal(partial.failed, false);
  assert.deepEqual(partial.lines, ['xlsx 0.1600 (partial set: not judged)']);
});
