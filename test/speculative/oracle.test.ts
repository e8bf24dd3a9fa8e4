/**
 * The pieces of the oracle replay and of draft normalization: Markdown ground truth → DocTags
 * blocks, the cl100k + DocTags stand-in tokenizer, the replay's pass counting and causes, and
 * the draft fixes (normalization, bullet merge) on real DocTags from the corpus.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { corpusPath } from '../helpers/corpus';
import { markdownToBlocks } from '../../bench/oracle/mdTarget';
import { DocTagsTokenizer, LOC_BASE } from '../../bench/oracle/doctagsTokenizer';
import { replaySequence } from '../../bench/oracle/replay';
import { pagesFromDocTags, splitPages } from '../../bench/oracle/corpusPages';
import { replayPage, VARIANTS } from '../../bench/oracle/oracleRun';
import { mergeBulletBlocks, normalizeDraftText, parseDraftBlocks } from '../../server/speculative/draftText';

test('Markdown ground truth becomes DocTags blocks with tags from the syntax', () => {
  const md = [
    '# Title here',
    '',
    '## Section *one*',
    '',
    'A paragraph with a [link](http://x) and `code`',
    'continued on a second line with $x \\times y$.',
    '',
    '- first',
    '- second',
    '1. numbered',
    '',
    '| A | B |',
    '| - | - |',
    '| 1 |   |',
    '',
    '```python',
    'print(1)',
    '```',
    '',
    '$$E = mc^2$$',
    '',
    '<!-- image -->',
  ].join('\n');
  const b = markdownToBlocks(md);
  assert.deepEqual(
    b.map((x) => x.tag),
    [
      'title',
      'section_header_level_1',
      'text',
      'list_item',
      'list_item',
      'list_item',
      'otsl',
      'code',
      'formula',
      'picture',
    ],
  );
  assert.equal(b[1].content, 'Section one');
  assert.equal(b[2].content, 'A paragraph with a link and code continued on a second line with x × y.');
  assert.deepEqual(
    b.slice(3, 6).map((x) => x.list),
    ['unordered_list', 'unordered_list', 'ordered_list'],
  );
  assert.equal(b[6].content, '<ched>A<ched>B<nl><fcel>1<ecel><nl>');
  assert.equal(b[7].content, '<_Python_>print(1)');
  assert.equal(b[8].content, 'E = mc^2');
});

test('stand-in tokenizer: tags and boxes are single tokens, text is cl100k, decode inverts encode', () => {
  const tok = new DocTagsTokenizer();
  const s =
    '<doctag><text><loc_1><loc_2><loc_3><loc_499>Hello world</text>\n<otsl><loc_0><loc_0><loc_9><loc_9><ched>A<fcel>1<nl></otsl>\n<formula><loc_5><loc_5><loc_6><loc_6>x^2</formula>\n</doctag>';
  const t = tok.encode(s);
  assert.equal(tok.decode(t.ids), s);
  const locs = t.ids.filter((id) => id >= LOC_BASE);
  assert.equal(locs.length, 12);
  assert.equal(locs[3], LOC_BASE + 499);
  assert.equal(t.ids[0], tok.tagId('<doctag>'));
  // "Hello world" is two cl100k tokens.
  const text = t.ids.slice(6, 8);
  assert.equal(tok.decode(text), 'Hello world');
  assert.deepEqual(t.kinds.slice(6, 8), ['text', 'text']);
  const cellAt = t.ids.indexOf(tok.tagId('<fcel>'));
  assert.equal(t.kinds[cellAt], 'cell');
  assert.equal(t.context[cellAt + 1], 'otsl');
  const x = t.ids.indexOf(tok.encodeText('x')[0]);
  assert.equal(t.context[x], 'formula');
  // `<b>` is not a DocTags tag: it stays text.
  assert.equal(tok.decode(tok.encode('a <b> c').ids), 'a <b> c');
  assert.ok(tok.encode('a <b> c').ids.every((id) => id < 200_000));
});

test('replay: no drafts → one pass per token; exact drafts → K-sized passes; causes cover the passes', () => {
  const tok = new DocTagsTokenizer();
  const info = tok.tokenInfo({ tagWildcards: false });
  const target = tok.encode(
    '<doctag><text><loc_10><loc_20><loc_30><loc_40>' + 'word '.repeat(60) + '</text>\n</doctag>',
  );
  const none = replaySequence(target, [], info, { K: 8 });
  assert.equal(none.passes, target.ids.length - 1);
  assert.equal(none.accepted, 0);
  const exact = replaySequence(target, [target.ids], info, { K: 8 });
  assert.equal(exact.passes, Math.ceil((target.ids.length - 1) / 9));
  assert.equal(exact.causes['K cap'], exact.passes - 1);
  // A draft with every box value moved: the passes lost are counted as locations.
  const moved = tok.encode(tok.decode(target.ids).replace(/<loc_(\d+)>/g, (_, n) => `<loc_${Number(n) + 5}>`));
  const m = replaySequence(target, [moved.ids], info, { K: 64 });
  assert.equal(m.causes.locations, 4);
  const sum = Object.values(m.causes).reduce((a, b) => a + b, 0);
  assert.ok(sum <= m.passes && sum >= m.passes - 1);
});

test('draft normalization: NFKC, soft hyphens, private-use bullets, unwrapped lines, list markers', () => {
  assert.equal(normalizeDraftText('ﬁnal e\u00adxam-\nple\nline two'), 'final example line two');
  assert.equal(normalizeDraftText('\uf0b7 item text', { list: true }), 'item text');
  assert.equal(normalizeDraftText('• item', { list: true }), 'item');
  assert.equal(normalizeDraftText('𝑥 = 𝐴'), 'x = A');
  assert.equal(normalizeDraftText('  keep\n  lines', { keepLines: true }), '  keep\n  lines');
});

test('a lone bullet block and the next block become one list item spanning both boxes', () => {
  const blocks = parseDraftBlocks(
    '<doctag><code><loc_76><loc_135><loc_79><loc_142><_unknown_>•</code>\n<text><loc_91><loc_135><loc_410><loc_151>Microsoft Office Suite</text>\n</doctag>',
  );
  const merged = mergeBulletBlocks(blocks);
  assert.equal(merged.length, 1);
  assert.deepEqual(merged[0], {
    tag: 'list_item',
    locs: '<loc_76><loc_135><loc_410><loc_151>',
    content: 'Microsoft Office Suite',
    list: 'unordered_list',
  });
});

test('real DocTags page (docling/pdf): a page drafted with its own target is replayed at the K cap', () => {
  const gt = readFileSync(corpusPath('docling/pdf/2305.03393v1-pg9.doctags.txt'), 'utf8');
  assert.equal(splitPages(gt).length, 1);
  const [page] = pagesFromDocTags('docling/pdf', 'x', gt, gt, false);
  assert.ok(page.pipeline.length >= 8, 'the page has its blocks');
  // Every block's ground truth is assigned to the same block of the "pipeline".
  assert.equal(page.regions.length, page.pipeline.filter((b) => b.content.replace(/<[^<>]+>/g, '').trim()).length);
  const tok = new DocTagsTokenizer();
  const v = VARIANTS.find((x) => x.name === 'DocTags as the pipeline writes them')!;
  const r = replayPage(tok, page, 'page', 32, v);
  assert.ok((r.tokens - 1) / r.stats.passes > 25, `exact drafts: ${(r.tokens - 1) / r.stats.passes} tokens per pass`);
  const plain = replayPage(tok, page, 'page', 32, VARIANTS[0]);
  assert.ok(plain.stats.passes > 2 * r.stats.passes, 'plain-text drafts lose the tags and boxes');
  const hsd = replayPage(tok, page, 'hsd', 32, v);
  assert.ok(hsd.stage1Passes > 0 && hsd.stats.passes <= r.stats.passes + 1);
});
