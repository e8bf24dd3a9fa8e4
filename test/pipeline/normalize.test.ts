import { test } from 'node:test';
import assert from 'node:assert/strict';
import { joinLines, normalizeSpanText, shouldDehyphenate } from '../../server/layout/lines/normalize';
import { analyzeCorpusPdf, bodyText } from './analyze';

test('ligatures, odd spaces and soft hyphens are normalized', () => {
  assert.equal(normalizeSpanText('ﬁnal eﬀect\u00a0now'), 'final effect now');
  assert.equal(normalizeSpanText('co\u00adoperate'), 'cooperate');
  assert.equal(normalizeSpanText('x\u200by'), 'xy');
});

test('line-end hyphens: joined when the word continues, kept for compounds and capitals', () => {
  assert.equal(joinLines(['the previous to-', 'kens are read']), 'the previous tokens are read');
  assert.equal(joinLines(['a state-of-', 'the-art model']), 'a state-of-the-art model');
  assert.equal(joinLines(['the Covid-', '19 pandemic']), 'the Covid-19 pandemic');
  assert.equal(joinLines(['Anglo-', 'Saxon']), 'Anglo-Saxon');
  assert.equal(
    shouldDehyphenate('grouped', 'query', new Set(['grouped-query'])),
    false,
    'the page spells it with a hyphen',
  );
  assert.equal(
    shouldDehyphenate('grouped', 'query', new Set(['grouped', 'query'])),
    false,
    'both halves are words on the page',
  );
  assert.equal(shouldDehyphenate('to', 'kens', new Set(['to', 'tokens'])), true);
});

test('a real LaTeX page: hyphenated line ends are joined and lines unwrapped', async () => {
  const text = bodyText(await analyzeCorpusPdf('selfmade-example/sample.xelatex-2col.pdf'));
  assert.match(text, /over the previous tokens\. The method/);
  assert.doesNotMatch(text, /to- kens|to-kens/);
  assert.doesNotMatch(text, /[\ufb00-\ufb06]/, 'no ligature code points left');
});
