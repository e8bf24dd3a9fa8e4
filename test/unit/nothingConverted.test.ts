/**
 * `nothingConverted` (common/errorKinds.ts): the one sentence and kind every surface (CLI, queue
 * client, extension export) gives a document whose pages all failed, in place of six copies.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nothingConverted } from '../../common/errorKinds';

test('pages failed and none converted: the first page error, as the document error', () => {
  const pageErrors = [
    { page: 1, kind: 'damaged' as const, message: 'page 1 is damaged' },
    { page: 2, kind: 'timeout' as const, message: 'page 2 ran out of time' },
  ];
  assert.deepEqual(nothingConverted({ pagesDone: [], pageErrors }), {
    page: 1,
    kind: 'damaged',
    message: 'no page could be converted (page 1 is damaged)',
  });
  assert.equal(nothingConverted({ pagesDone: [3], pageErrors }), undefined, 'a page converted');
  assert.equal(nothingConverted({ pagesDone: [], pageErrors: [] }), undefined, 'nothing failed (e.g. cancelled)');
});
