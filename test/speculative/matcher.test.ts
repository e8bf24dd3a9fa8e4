import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DraftIndex } from '../../server/speculative/draftIndex';
import { buildPrefixTree, deepestOnly } from '../../server/speculative/prefixTree';
import { toyTokenInfo, TOY_VOCAB } from './toyTarget';

const info = toyTokenInfo();
const L = (n: number) => TOY_VOCAB.locStart + n; // a location token

test('matcher finds every occurrence of the key, across drafts', () => {
  const drafts = [
    [5, 6, 7, 8, 9],
    [2, 5, 6, 7, 10, 11],
    [5, 6, 7], // ends after the key: nothing to propose
  ];
  const idx = new DraftIndex(drafts, info, 3);
  const c = idx.candidates([3, 5, 6, 7], { K: 32, maxChains: 10 });
  assert.deepEqual(
    c.map((x) => x.tokens).sort((a, b) => a[0] - b[0]),
    [
      [8, 9],
      [10, 11],
    ],
  );
  assert.ok(c.every((x) => x.keyLength === 3));
});

test('matcher falls back to shorter keys only when the longer key misses', () => {
  const drafts = [
    [4, 5, 6, 20, 21],
    [9, 6, 30],
  ];
  const idx = new DraftIndex(drafts, info, 3);
  // Full key (3,5,6) is absent; (5,6) matches once; (6) would match twice but is not used.
  const c2 = idx.candidates([3, 5, 6], { K: 32, maxChains: 10 });
  assert.deepEqual(
    c2.map((x) => [x.keyLength, x.tokens]),
    [[2, [20, 21]]],
  );
  // Only the last token matches: window 1, both occurrences.
  const c1 = idx.candidates([12, 13, 6], { K: 32, maxChains: 10 });
  assert.equal(c1.length, 2);
  assert.ok(c1.every((x) => x.keyLength === 1));
  // Nothing matches at all.
  assert.deepEqual(idx.candidates([40, 41, 42], { K: 32, maxChains: 10 }), []);
});

test('matcher caps suffix length at K and the number of candidates at maxChains', () => {
  const body = Array.from({ length: 40 }, (_, i) => 2 + (i % 40));
  const drafts = Array.from({ length: 12 }, (_, d) => [3, 4, 5, ...body.map((t) => ((t + d) % 40) + 6)]);
  const idx = new DraftIndex(drafts, info, 3);
  const c = idx.candidates([3, 4, 5], { K: 7, maxChains: 5 });
  assert.equal(c.length, 5);
  assert.ok(c.every((x) => x.tokens.length === 7));
});

test('the start of a draft matches an empty output', () => {
  const idx = new DraftIndex(
    [
      [7, 8, 9],
      [10, 11],
    ],
    info,
    3,
  );
  const c = idx.candidates([], { K: 32, maxChains: 10 });
  assert.deepEqual(
    c.map((x) => x.tokens),
    [
      [7, 8, 9],
      [10, 11],
    ],
  );
  // One token written: the key is (BOS, 7).
  assert.deepEqual(
    idx.candidates([7], { K: 32, maxChains: 10 }).map((x) => x.tokens),
    [[8, 9]],
  );
});

test('location tokens are left out of the key, skipped when aligning, and still drafted', () => {
  // Draft: <tag> loc loc loc loc text…  The model wrote other locations.
  const drafts = [[3, 4, L(1), L(2), L(3), L(4), 20, 21, 22]];
  const idx = new DraftIndex(drafts, info, 3);
  // Right after the tag: the draft's locations are proposed.
  assert.deepEqual(idx.candidates([2, 3, 4], { K: 32, maxChains: 4 })[0].tokens, [L(1), L(2), L(3), L(4), 20, 21, 22]);
  // Two (different) locations already written: skip two in the draft, propose the rest.
  const c = idx.candidates([2, 3, 4, L(9), L(7)], { K: 32, maxChains: 4 });
  assert.deepEqual(c[0].tokens, [L(3), L(4), 20, 21, 22]);
  assert.equal(c[0].locDistance, 8 + 5);
  // A key spanning the locations: (4, 20, 21) matches although the output's locations differ.
  assert.deepEqual(idx.candidates([3, 4, L(0), L(0), L(0), L(0), 20, 21], { K: 32, maxChains: 4 })[0].tokens, [22]);
});

test('candidates are ranked by location closeness when the model picks among blocks', () => {
  // Two text blocks with the same tag; the model's location is close to the second.
  const drafts = [[3, 4, L(1), L(1), 20, 21, 5, 3, 4, L(12), L(12), 30, 31, 5]];
  const idx = new DraftIndex(drafts, info, 2);
  const c = idx.candidates([9, 3, 4, L(11)], { K: 32, maxChains: 1 });
  assert.deepEqual(c[0].tokens, [L(12), 30, 31, 5]);
});

test('repeated text gives one candidate per distinct continuation', () => {
  const drafts = [[5, 6, 7, 8, 5, 6, 7, 8, 5, 6, 7, 9]];
  const idx = new DraftIndex(drafts, info, 3);
  const c = idx.candidates([5, 6, 7], { K: 2, maxChains: 10 });
  assert.deepEqual(c.map((x) => x.tokens).sort(), [[8, 5], [9]]);
});

test('prefix tree merges shared prefixes and yields one chain per leaf', () => {
  const t = buildPrefixTree([
    [1, 2, 3],
    [1, 2, 4],
    [1, 2], // a prefix of the others: no chain of its own
    [5],
  ]);
  assert.equal(t.roots.length, 2);
  assert.equal(t.nodes, 5); // 1, 2, 3, 4, 5
  assert.deepEqual(t.chains, [[1, 2, 3], [1, 2, 4], [5]]);
  const one = t.roots[0];
  assert.equal(one.children.length, 1);
  assert.equal(one.children[0].children.length, 2);
  // Every node names a chain that passes through it at its depth.
  const check = (n: typeof one) => {
    assert.equal(t.chains[n.chain][n.depth - 1], n.token);
    n.children.forEach(check);
  };
  t.roots.forEach(check);
  assert.deepEqual(deepestOnly(t).chains, [[1, 2, 3]]);
});
