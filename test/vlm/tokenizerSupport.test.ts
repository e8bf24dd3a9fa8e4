/**
 * tokenizer.json features Folio does not implement are refused with the field's name (issue 29
 * item 3): a normalizer, a pre-tokenizer other than GPT-2's / cl100k's byte-level layout, another
 * decoder, BPE options that change ids. The real layout (assembled from granite-docling's files)
 * and GPT-2's plain ByteLevel are accepted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tokenizer } from '../../server/vlm/tokenizer';

const vocab = { a: 0, b: 1, ab: 2, Ġ: 3 };
const base = { model: { type: 'BPE', vocab, merges: ['a b'] } };
const split = { type: 'Split', pattern: { Regex: '\\s+|\\S+' }, behavior: 'Isolated', invert: false };
const byteLevel = (useRegex: boolean) => ({ type: 'ByteLevel', add_prefix_space: false, use_regex: useRegex });
const make = (extra: Record<string, unknown>) => () => new Tokenizer({ ...base, ...extra } as never, 'tok.json');

test('the layouts Folio implements load and tokenize', () => {
  assert.deepEqual(make({})().encode('ab'), [2]);
  assert.deepEqual(make({ pre_tokenizer: byteLevel(true), decoder: { type: 'ByteLevel' } })().encode('ab'), [2]);
  const cl100k = make({ pre_tokenizer: { type: 'Sequence', pretokenizers: [split, byteLevel(false)] } })();
  assert.deepEqual(cl100k.encode('ab'), [2]);
  assert.deepEqual(make({ pre_tokenizer: split, normalizer: null })().encode('ab'), [2]);
});

const refused: [string, Record<string, unknown>, RegExp][] = [
  ['a normalizer', { normalizer: { type: 'NFC' } }, /normalizer "NFC"/],
  ['a Metaspace pre-tokenizer', { pre_tokenizer: { type: 'Metaspace' } }, /pre_tokenizer "Metaspace"/],
  [
    'a Digits step in a Sequence',
    { pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Digits' }, byteLevel(false)] } },
    /pre_tokenizer Sequence \[Digits, ByteLevel\]/,
  ],
  [
    'a Split that removes its matches',
    { pre_tokenizer: { ...split, behavior: 'Removed' } },
    /pre_tokenizer\.behavior "Removed"/,
  ],
  ['an inverted Split', { pre_tokenizer: { ...split, invert: true } }, /pre_tokenizer\.invert true/],
  [
    "a second regex split after cl100k's",
    { pre_tokenizer: { type: 'Sequence', pretokenizers: [split, byteLevel(true)] } },
    /pretokenizers\[1\]\.use_regex true/,
  ],
  [
    'a prefix space',
    { pre_tokenizer: { ...byteLevel(true), add_prefix_space: true } },
    /pre_tokenizer\.add_prefix_space true/,
  ],
  ['a WordPiece decoder', { decoder: { type: 'WordPiece' } }, /decoder "WordPiece"/],
  ['byte fallback', { model: { ...base.model, byte_fallback: true } }, /model\.byte_fallback true/],
];

for (const [what, extra, message] of refused) {
  test(`refused by name: ${what}`, () => {
    assert.throws(make(extra), (e: Error) => {
      assert.match(e.message, /^tok\.json: /);
      assert.match(e.message, message);
      assert.match(e.message, /not supported by Folio's tokenizer/);
      return true;
    });
  });
}
