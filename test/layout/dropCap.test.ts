/**
 * Issue 40 class 3: a drop cap split from its word ("W" as a paragraph of its own over "hen the
 * last keeper …"; server/layout/blocks/dropCap.ts). XeLaTeX with lettrine, made for this test
 * (test/fixtures/dropcap), each page converted alone. Look-alike that stays: a glossary's large
 * letters over their entries (page 2).
 *
 * Then real pages of the set's working part: lettrine's own French demo, whose capitals open
 * words set in small capitals ("E" beside "N plein marais …", "J" beside "USTEMENT, …"), rise
 * above their line (`lines=1`, `loversize`), hang in the margin (`lhang=1`), follow a "«", and
 * stand three lines tall — whose middle sat level with the second line, so the line builder made
 * one line of the capital and that line ("E Mortes, se trouve …" before "N plein marais …",
 * server/layout/lines/index.ts `dropCapBeside`); and the made newsletter's "J" of "January".
 * Look-alikes on the same pages that stay: the headings, the code lines quoting the lettrine
 * calls, the order of the sections and the newsletter's headings, lists and columns.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileMarkdown, fixture } from './convertFile';
import { failingSetTests } from './setTests';

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

/** Each failed before the rule (drop cap in small capitals, raised, three lines tall, after «). */
const FIXED = ['lettrine-p1-02', 'lettrine-p1-03', 'lettrine-p1-04', 'lettrine-p1-05', 'madenewsletter-p1-05'];
/** Headings, code, order and text on the same pages. */
const STAY = [
  'lettrine-p1-01',
  'lettrine-p1-06',
  'lettrine-p1-07',
  'lettrine-p1-08',
  'madenewsletter-p1-03',
  'madenewsletter-p1-04',
  'madenewsletter-p1-06',
  'madenewsletter-p1-07',
  'madenewsletter-p1-08',
  'madenewsletter-p1-09',
];

test("real pages: lettrine's capitals open their words whatever their height, hang or case; headings, code and order stay", async () => {
  const ids = [...FIXED, ...STAY];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length, 'every test id is in the set');
  assert.deepEqual(failed, []);
});
