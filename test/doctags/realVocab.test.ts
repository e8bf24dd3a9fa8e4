/**
 * DocTags as granite-docling's real vocabulary writes it: section levels only 1–6 (deeper ones
 * clamped, both ways), and the key/value/link ids, `<group>` and `<references>` wrappers dropped
 * with their text kept, never leaked into the Markdown as literal tags.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDocTags } from '../../server/doctags/parse';
import { pageToMarkdown } from '../../server/doctags/markdown';
import { serializeItem } from '../../server/doctags/serialize';

test('section header levels are clamped to 1–6 when parsed and when serialized', () => {
  const items = parseDocTags(
    '<section_header_level_9><loc_1><loc_2><loc_3><loc_4>Deep</section_header_level_9><section_header_level_3>Mid</section_header_level_3>',
  )[0]!.items;
  assert.deepEqual(
    items.map((i) => [i.cls, i.level]),
    [
      ['section_header', 6],
      ['section_header', 3],
    ],
  );
  assert.match(
    serializeItem({ cls: 'section_header', level: 8, text: 'X', grid: [1, 2, 3, 4] }),
    /^<section_header_level_6>/,
  );
});

test('key/value/link ids, group and references wrappers are dropped, their text kept', () => {
  const dt =
    '<key_value_region><loc_10><loc_10><loc_200><loc_40><key_1>Name:</key_1><value_2>Ada Lovelace</value_2><link_1><link_2></key_value_region>' +
    '<group><text><loc_10><loc_50><loc_200><loc_60>Grouped text</text></group>' +
    '<references><text><loc_10><loc_70><loc_200><loc_80>[1] A reference</text></references>';
  const items = parseDocTags(dt)[0]!.items;
  const md = pageToMarkdown(items).markdown;
  assert.doesNotMatch(md, /<\/?(key|value|link|group|references)/, md);
  assert.match(md, /Name: Ada Lovelace/);
  assert.match(md, /Grouped text/);
  assert.match(md, /\[1\] A reference/);
  // Not confused with real elements or text that merely looks similar.
  // (The Markdown escaping of the literal '<' is the escaper's business; the word stays.)
  assert.match(
    pageToMarkdown(parseDocTags('<text><loc_1><loc_2><loc_3><loc_4>a <keyboard> b</text>')[0]!.items).markdown,
    /keyboard/,
  );
});
