/**
 * Issue 40 class 6: a page set in a typewriter face became code blocks, paragraphs and all
 * (server/layout/blocks/typewriter.ts). A memo typeset by XeLaTeX in Latin Modern Mono
 * (test/fixtures/typewriter, made for this test), page converted alone: its paragraphs are text
 * and its table a table; the C listing on it stays one code block. Look-alikes that stay code: a
 * whole page of C source with prose comments in the same face (page 2), and a listing in a
 * proportional page (docling's code_and_formula.pdf, test/layout/codeListings.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codeLike } from '../../server/layout/blocks/typewriter';
import { fileMarkdown, fixture } from './convertFile';

const FILE = fixture('typewriter', 'typewriter.pdf');

/** The fenced code blocks of a Markdown text. */
function fences(md: string): string[] {
  return [...md.matchAll(/^```[^\n]*\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

test('a typed memo reads as text and a table; only its listing is code', async () => {
  const md = await fileMarkdown(FILE, [1]);
  const code = fences(md);
  assert.equal(code.length, 1, `one code block, the listing:\n${md}`);
  assert.match(code[0]!, /sum \+= level\[i\];/);
  assert.doesNotMatch(code[0]!, /tide gauges|Questions/);
  assert.match(md, /^The tide gauges on the north quay will be moved to the new pier during the week of 20 March\./m);
  assert.match(md, /^Questions about the move go to the harbour engineer\.$/m);
  assert.match(md, /^\| North 1 \| 2\.41 \| 2\.38 \|$/m);
});

test('a page of C source in the same face stays one code block, its comments in it', async () => {
  const md = await fileMarkdown(FILE, [2]);
  const code = fences(md);
  assert.equal(code.length, 1, md);
  assert.match(code[0]!, /A missed reading is stored as a negative level\./);
  assert.match(code[0]!, /^ {4}return taken;$/m);
  assert.equal(md.replace(/^```[\s\S]*?^```$/m, '').trim(), '', 'nothing of the page outside the block');
});

test('code evidence: tokens and symbol density, not the face', () => {
  for (const code of [
    'sum += level[i];',
    'for (i = 0; i < n; i++) {',
    '}',
    '#include <stdio.h>',
    '$ make install',
    'return;',
    'free(p);',
    'import java.util.List;',
    'static int count;',
  ])
    assert.ok(codeLike(code), code);
  for (const prose of [
    'The tide gauges on the north quay will be moved to the new pier during the week of',
    'Email: bailey@cs.wpi.edu',
    'Gauge heights after the move:',
    'North 1 2.41 2.38',
    // a list item's clause closed by a semicolon (the typed memo of eval/realworld/made)
    'parapets or walls that may carry a mark;',
    '2. keep a note of the chainage of any mark they find disturbed;',
  ])
    assert.ok(!codeLike(prose), prose);
});
