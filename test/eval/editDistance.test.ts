import { test } from 'node:test';
import assert from 'node:assert/strict';
import { levenshtein, levenshteinReference, normalizedEditDistance } from '../../eval/metrics/levenshtein';

test('levenshtein: textbook pairs', () => {
  assert.equal(levenshtein('kitten', 'sitting'), 3);
  assert.equal(levenshtein('flaw', 'lawn'), 2);
  assert.equal(levenshtein('', 'abc'), 3);
  assert.equal(levenshtein('abc', ''), 3);
  assert.equal(levenshtein('same', 'same'), 0);
  assert.equal(normalizedEditDistance('abc', 'abd'), 1 / 3);
  assert.equal(normalizedEditDistance('', ''), 0);
  assert.equal(normalizedEditDistance('abcd', 'wxyz'), 1);
});

test('levenshtein: bit-parallel blocks agree with plain DP across word boundaries', () => {
  // A fixed xorshift generator: the same cases every run.
  let x = 2463534242;
  const rnd = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
  const gen = (n: number, k: number) =>
    Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(rnd() * k))).join('');
  for (let i = 0; i < 400; i++) {
    // Lengths around 31/32/33, 63/64/65 and beyond exercise the carry between blocks.
    const a = gen(Math.floor(rnd() * 140), 1 + Math.floor(rnd() * 4));
    const b = gen(Math.floor(rnd() * 140), 1 + Math.floor(rnd() * 4));
    assert.equal(levenshtein(a, b), levenshteinReference(a, b), `${a} / ${b}`);
  }
  const a = gen(64, 3);
  assert.equal(levenshtein(a, a.slice(1) + 'x'), levenshteinReference(a, a.slice(1) + 'x'));
});

test('levenshtein: 50 KB texts with a known number of edits', () => {
  const base = Array.from({ length: 50_000 }, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join('');
  // 100 substitutions at spread positions, each to a character the base never has there.
  const chars = base.split('');
  for (let k = 0; k < 100; k++) chars[k * 499 + 3] = 'Z';
  assert.equal(levenshtein(base, chars.join('')), 100);
});
