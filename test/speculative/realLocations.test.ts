/**
 * Locations as granite-docling's real tokenizer writes them: `<loc_N>` is the BPE pieces `<`
 * `loc` `_` `N` `>`, and the `>` merges with the next piece (`><` between two locations, `>T` or
 * `>(` before text). The matcher must leave every location piece out of its keys, skip the
 * pieces the model already wrote when aligning a draft, measure box distances on the value
 * pieces, and propose nearby values and calibrated boxes — all on the real tokenization
 * (tokenizer.json assembled from ../shared/models/granite-docling-258M).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DraftIndex, locationVariants } from '../../server/speculative/draftIndex';
import { tokenInfoFor } from '../../server/vlm/loadTarget';
import { realTokenizer } from '../../scripts/fixtures/makeTinyModels';

const tok = realTokenizer().tok;
const info = tokenInfoFor(tok, [tok.id('</doctag>'), tok.id('<|end_of_text|>')]);

test('location roles by context: 16 pieces a box, values at the numbers, ">T"-style pieces are text', () => {
  assert.ok(info.locationRoles, 'the real vocabulary has no <loc_N> tokens, so roles are used');
  const ids = tok.encode('<text><loc_1><loc_22><loc_333><loc_499>(a) 12_3 <b</text>');
  const roles = [...info.locationRoles!(ids)];
  const names = ids.map((i) => tok.token(i));
  assert.deepEqual(names.slice(0, 18), [
    '<text>',
    '<',
    'loc',
    '_',
    '1',
    '><',
    'loc',
    '_',
    '22',
    '><',
    'loc',
    '_',
    '333',
    '><',
    'loc',
    '_',
    '499',
    '>(',
  ]);
  assert.deepEqual(roles.slice(0, 18), [-1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, -1]);
  assert.ok(
    roles.slice(18).every((r) => r === -1),
    `text digits, "_" and "<" are not locations: ${names.slice(18).join(' ')}`,
  );
  assert.deepEqual(
    ids.filter((_, i) => roles[i] === 1).map((i) => info.location!(i)),
    [1, 22, 333, 499],
  );
  // A box cut off at the end (the model is writing it) counts as location pieces.
  const partial = tok.encode('<text><loc_1><loc_2');
  assert.deepEqual([...info.locationRoles!(partial)].slice(1), [0, 0, 0, 1, 0, 0, 0, 1]);
});

test('keys skip location pieces: a drafted block matches though every box value differs; the proposal lines up', () => {
  const draft = tok.encode(
    '<doctag><text><loc_40><loc_60><loc_460><loc_90>Hello world</text><text><loc_40><loc_100><loc_460><loc_130>Second block</text></doctag>',
  );
  const idx = new DraftIndex([draft], info, 3);
  // The model wrote the first block with other boxes and is two values into the second box. As the
  // model writes them, the pieces are those of the whole text cut after its value "103" (a cut
  // string would end in '>' where the model writes '><').
  const full = tok.encode(
    '<doctag><text><loc_41><loc_62><loc_459><loc_91>Hello world</text><text><loc_41><loc_103><loc_461><loc_131>Second block</text>',
  );
  const out = full.slice(0, full.indexOf(tok.id('103')) + 1);
  const c = idx.candidates(out, { K: 32, maxChains: 4 });
  assert.ok(c.length > 0, 'a candidate despite different location values');
  // Aligned after the two values written: the rest of the draft's box, then its text.
  assert.deepEqual(
    c[0].tokens.slice(0, 8).map((i) => tok.token(i)),
    ['><', 'loc', '_', '460', '><', 'loc', '_', '130'],
  );
  assert.ok(tok.decode(c[0].tokens).startsWith('><loc_460><loc_130>Second block</text>'), tok.decode(c[0].tokens));
  assert.equal(c[0].locDistance, 1 + 3, 'distance on the value pieces: |41−40| + |103−100|');
});

test('location variants move one value piece by ±1; calibration shifts later drafted boxes by the observed offset', () => {
  const draft = tok.encode(
    '<text><loc_40><loc_60><loc_460><loc_90>Hello world</text><text><loc_40><loc_100><loc_460><loc_130>Second block</text><text><loc_40><loc_140><loc_460><loc_170>Third block</text>',
  );
  const idx = new DraftIndex([draft], info, 3, true);
  // The model has opened the second block: the proposal starts with the drafted box.
  const c = idx.candidates(tok.encode('<text><loc_42><loc_62><loc_462><loc_92>Hello world</text><text>'), {
    K: 64,
    maxChains: 4,
  });
  const best = c[0];
  assert.ok(tok.decode(best.tokens).startsWith('<loc_40><loc_100>'), tok.decode(best.tokens));
  const vars = locationVariants(best, info, 1);
  assert.equal(vars.length, 8, '4 values × (−1, +1)');
  const texts = vars.map((v) => tok.decode(v.tokens));
  assert.ok(
    texts.some((t) => t.startsWith('<loc_39><loc_100><loc_460><loc_130>Second')),
    texts.join('\n'),
  );
  assert.ok(
    texts.some((t) => t.startsWith('<loc_40><loc_100><loc_460><loc_131>Second')),
    texts.join('\n'),
  );
  // The model's boxes run +2 on every coordinate: once it has written a box of a drafted block,
  // later drafted boxes are proposed moved by +2.
  const out2 = tok.encode(
    '<text><loc_42><loc_62><loc_462><loc_92>Hello world</text><text><loc_42><loc_102><loc_462><loc_132>Second block</text><text>',
  );
  idx.candidates(tok.encode('<text><loc_42><loc_62><loc_462><loc_92>'), { K: 64, maxChains: 4 });
  idx.candidates(
    tok.encode('<text><loc_42><loc_62><loc_462><loc_92>Hello world</text><text><loc_42><loc_102><loc_462><loc_132>'),
    { K: 64, maxChains: 4 },
  );
  const next = idx.candidates(out2, { K: 64, maxChains: 4 });
  assert.ok(
    tok.decode(next[0].tokens).startsWith('<loc_42><loc_142><loc_462><loc_172>Third block'),
    tok.decode(next[0].tokens),
  );
});
