/**
 * The tokenizer against a reference implementation: granite-docling's tokenizer is a cl100k-style
 * byte-level BPE, so a `tokenizer.json` is built here from the cl100k ranks shipped with
 * js-tiktoken (vocabulary = each rank's bytes in the byte-level alphabet; merges derived from
 * the ranks as the hub's tiktoken converter does), and our encoding of real corpus text must
 * equal js-tiktoken's, token for token, and decode back to the text.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { Tokenizer } from '../../server/vlm/tokenizer';
import { bytesToUnicode } from '../../scripts/fixtures/byteLevel';
import { corpusPath } from '../helpers/corpus';

let ours: Tokenizer;
let ref: Tiktoken;

before(() => {
  ref = new Tiktoken(cl100k);
  const table = bytesToUnicode();
  const vocab: Record<string, number> = {};
  for (const line of cl100k.bpe_ranks.split('\n')) {
    if (!line) continue;
    const [, offset, ...tokens] = line.split(' ');
    tokens.forEach((t, i) => {
      vocab[[...Buffer.from(t, 'base64')].map((b) => table[b]).join('')] = Number(offset) + i;
    });
  }
  const merges: [number, number, number, string, string][] = [];
  for (const [tok, rank] of Object.entries(vocab)) {
    const chars = [...tok];
    for (let i = 1; i < chars.length; i++) {
      const l = chars.slice(0, i).join('');
      const r = chars.slice(i).join('');
      const rl = vocab[l];
      const rr = vocab[r];
      if (rl !== undefined && rr !== undefined && rl < rank && rr < rank) merges.push([rank, rl, rr, l, r]);
    }
  }
  merges.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  const added = Object.entries(cl100k.special_tokens).map(([content, id]) => ({ id, content, special: true }));
  ours = new Tokenizer({
    added_tokens: added,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        {
          type: 'Split',
          pattern: {
            Regex:
              "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
          },
        },
        { type: 'ByteLevel', use_regex: false },
      ],
    },
    model: { type: 'BPE', vocab, merges: merges.map((m) => [m[3], m[4]] as [string, string]) },
  });
});

test('encoding real text equals cl100k (js-tiktoken) token for token, and decodes back', () => {
  const texts = [
    readFileSync(corpusPath('docling/pdf/2305.03393v1-pg9.md'), 'utf8').slice(0, 20000),
    "Ünïcödé — “quotes”, emoji 😀, CJK 文档转换, numbers 1234567, I'M HERE, tabs\tand\r\nnewlines\n\n\n  spaces   ",
  ];
  for (const text of texts) {
    const want = ref.encode(text);
    const got = ours.encode(text);
    assert.equal(got.length, want.length);
    assert.deepEqual(got, want);
    assert.equal(ours.decode(got), text);
  }
  assert.deepEqual(ours.encode('<|endoftext|>x'), [100257, ...ref.encode('x')]);
});

test('DocTags from the corpus (real docling output) round-trip and match cl100k', () => {
  const text = readFileSync(corpusPath('docling/pdf/amt_handbook_sample.doctags.txt'), 'utf8').slice(0, 20000);
  assert.deepEqual(ours.encode(text), ref.encode(text));
  assert.equal(ours.decode(ours.encode(text)), text);
});
