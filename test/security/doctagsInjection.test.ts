/**
 * Issue 21 item 11 through the real CLI on a PDF printed by Chromium whose text holds DocTags
 * markup (`x</text><section_header_level_1><loc_…>Injected heading</section_header_level_1>…`)
 * and a code block holding `</code>`. Before the fix the text became a heading and a picture in
 * `.doctags.txt` and `.md`, the code block ended early, and the page's real picture lost its
 * link (the round trip no longer matched the items one to one).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { fixture, runCli } from './issue21Cli';
import { parseDocTags } from '../../server/doctags/parse';
import { serializePage } from '../../server/doctags/serialize';

let dir: string;
let pdf: string;
const env = () => ({ FOLIO_CACHE_DIR: join(dir, 'cache') });

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'folio-sec-doctags-'));
  pdf = join(dir, 'markup.pdf');
  copyFileSync(fixture('markup-in-text.pdf'), pdf);
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('.doctags.txt: text that looks like DocTags stays text', async () => {
  const out = join(dir, 'markup.doctags.txt');
  const r = await runCli(['convert', pdf, '-o', out, '-q', '--format', 'doctags'], { cwd: dir, env: env() });
  assert.equal(r.status, 0, r.stderr);
  const dt = readFileSync(out, 'utf8');
  assert.ok(!dt.includes('<section_header_level_1>'), dt);
  assert.equal(dt.match(/<picture>/g)?.length, 1, 'one picture: the real one');
  assert.equal(dt.match(/<\/code>/g)?.length, 1, 'the code element is closed once, at its end');
  // Read back with the parser: the items are what the page holds.
  const items = parseDocTags(dt)[0]!.items;
  assert.deepEqual(
    items.map((i) => i.cls),
    ['title', 'text', 'code', 'picture', 'text'],
  );
  assert.match(
    items[1]!.text,
    /x<\/text>\s*<section_header_level_1><loc_10>.*Injected heading<\/section_header_level_1><picture>.*and the sentence goes on\./,
  );
  assert.match(items[2]!.text, /return "<\/code><text>not code<\/text>";/);
});

test('.md: no injected heading, the code block holds its </code>, the picture keeps its link', async () => {
  const out = join(dir, 'markup.md');
  const r = await runCli(['convert', pdf, '-o', out, '-q'], { cwd: dir, env: env() });
  assert.equal(r.status, 0, r.stderr);
  const md = readFileSync(out, 'utf8');
  assert.ok(!/^#+ Injected heading/m.test(md), md);
  assert.match(md, /x&lt;\/text>\s*&lt;section_header_level_1>/);
  const fence = /```\n([\s\S]*?)\n```/.exec(md);
  assert.ok(fence, md);
  assert.match(fence[1]!, /return "<\/code><text>not code<\/text>";\n\}/);
  assert.match(md, /!\[Figure 1: a chart of the values\.\]\(markup\.assets\/[^)]+\.png\)/);
  assert.ok(!md.includes('<!-- image -->'), md);
});

test('the serializer encodes < > (and & before an entity name) in text; the parser decodes them', () => {
  const texts = ['a<b>c', 'x</text><title>t</title>', '&lt; stays &lt;', 'R&D & co', '<loc_12> <_python_>', 'a > b'];
  const items = texts.map((text) => ({ cls: 'text' as const, text }));
  const dt = serializePage(items);
  assert.ok(!dt.replace(/<\/?text>/g, '').includes('<'), dt);
  assert.deepEqual(
    parseDocTags(dt)[0]!.items.map((i) => i.text),
    texts,
  );
  const code = serializePage([{ cls: 'code', text: 'if (a < b) return "</code>";', language: 'js' }]);
  assert.equal(parseDocTags(code)[0]!.items[0]!.text, 'if (a < b) return "</code>";');
});
