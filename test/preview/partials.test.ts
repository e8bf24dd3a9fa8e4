/**
 * The preview's merge of partial and final pages (media/preview/partials.ts) and the `partial`
 * message's validation (common/viewMessages.ts): partials of the running conversion are shown in
 * `seq` order; a final page supersedes its partial for good; partials of another conversion,
 * of a page already final, older ones, and any after the conversion ended are dropped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PartialPages } from '../../media/preview/partials';
import { parseHostMessage } from '../../common/viewMessages';

const conv = 'c-1';

test('partials of the running conversion are shown newest-first; older and duplicate ones are dropped', () => {
  const t = new PartialPages();
  t.reset(conv, []);
  assert.equal(t.accept({ conversion: conv, page: 1, seq: 1 }), true);
  assert.equal(t.accept({ conversion: conv, page: 1, seq: 3 }), true);
  assert.equal(t.accept({ conversion: conv, page: 1, seq: 2 }), false, 'older than shown');
  assert.equal(t.accept({ conversion: conv, page: 1, seq: 3 }), false, 'duplicate');
  assert.equal(t.accept({ conversion: conv, page: 2, seq: 1 }), true, 'pages are counted apart');
  assert.equal(t.isShowing(1), true);
});

test('the final page supersedes its partial, and later partials of that page are stale', () => {
  const t = new PartialPages();
  t.reset(conv, []);
  t.accept({ conversion: conv, page: 1, seq: 4 });
  assert.equal(t.final(1), true, 'a partial was showing');
  assert.equal(t.isShowing(1), false);
  assert.equal(t.accept({ conversion: conv, page: 1, seq: 5 }), false, 'a partial after the final page');
  assert.equal(t.final(2), false, 'no partial of page 2 was shown');
  assert.equal(t.accept({ conversion: conv, page: 2, seq: 1 }), false);
});

test('partials of another conversion, or with none running, are dropped; init resets', () => {
  const t = new PartialPages();
  assert.equal(t.accept({ conversion: conv, page: 1, seq: 1 }), false, 'nothing running yet');
  t.reset('c-2', [1, 2]);
  assert.equal(t.accept({ conversion: conv, page: 3, seq: 9 }), false, 'an earlier conversion');
  assert.equal(t.accept({ conversion: 'c-2', page: 2, seq: 1 }), false, 'page already final at init');
  assert.equal(t.accept({ conversion: 'c-2', page: 3, seq: 1 }), true);
  t.reset(undefined, [1, 2, 3]);
  assert.equal(t.accept({ conversion: 'c-2', page: 4, seq: 2 }), false, 'init says nothing is converting');
});

test('when the conversion ends, the partials still shown are handed back and no more are accepted', () => {
  const t = new PartialPages();
  t.reset(conv, []);
  t.accept({ conversion: conv, page: 1, seq: 1 });
  t.final(1);
  t.accept({ conversion: conv, page: 2, seq: 1 });
  assert.deepEqual(t.finish(), [2], 'page 2 never finished (cancel): its slot is removed');
  assert.equal(t.accept({ conversion: conv, page: 2, seq: 2 }), false, 'after the end');
  assert.deepEqual(t.finish(), []);
});

test('partial messages are validated field by field', () => {
  const base = {
    uri: 'file:///w/doc.md',
    version: 2,
    type: 'partial',
    conversion: conv,
    page: 3,
    seq: 1,
    markdown: '## Head\n\n<script>x</script>',
  };
  assert.deepEqual(parseHostMessage({ ...base, extra: 1 }), {
    uri: base.uri,
    version: 2,
    type: 'partial',
    conversion: conv,
    page: 3,
    seq: 1,
    markdown: base.markdown,
  });
  for (const bad of [
    { seq: 0 },
    { seq: 1.5 },
    { page: 0 },
    { conversion: 7 },
    { conversion: 'x'.repeat(201) },
    { markdown: null },
  ]) {
    assert.equal(typeof parseHostMessage({ ...base, ...bad }), 'string', JSON.stringify(bad));
  }
  const init = {
    uri: base.uri,
    version: 2,
    type: 'init',
    title: 't',
    pdfUri: 'file:///w/a.pdf',
    pages: [],
    converting: true,
  };
  assert.equal((parseHostMessage({ ...init, conversion: conv }) as { conversion?: string }).conversion, conv);
  assert.equal(typeof parseHostMessage({ ...init, conversion: 5 }), 'string');
});
