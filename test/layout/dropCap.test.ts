/**
 * Issue 40 class 3: a drop cap split from its word ("W" as a paragraph of its own over "hen the
 * last keeper …"; server/layout/blocks/dropCap.ts). XeLaTeX with lettrine, made for this test
 * (test/fixtures/dropcap), each page converted alone. Look-alike that stays: a glossary's large
 * letters over their entries (page 2).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileMarkdown, fixture } from './convertFile';

const FILE = fixture('dropcap', 'dropcap.pdf');

test('a drop cap opens its word and its paragraph', async () => {
  const md = await fileMarkdown(FILE, [1]);
  const paras = md.split(/\n\n+/).map((p) => p.trim());
  assert.deepEqual(
    paras.map((p) => p.replace(/^#+ /, '').slice(0, 30)),
    ['The Lighthouse Keepers', 'When the last keeper left the ', 'The lamp itself was changed th'],
  );
  assert.doesNotMatch(md, /^[WT]$/m);
});

test("a glossary's letters over their entries stay lines of their own", async () => {
  const md = await fileMarkdown(FILE, [2]);
  assert.match(md, /^A\n\nabutment: the masonry/m);
  assert.match(md, /^B\n\nballast: weight carried low/m);
});
