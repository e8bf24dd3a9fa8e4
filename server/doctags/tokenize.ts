/**
 * DocTags text → tokens. Only names from the DocTags vocabulary are markup: `<td>`, `<script>`
 * or a lone `<` in text stay text. Truncated tokens (a VLM stopped mid-token, a cut file) are
 * dropped rather than leaking `<loc_1` into the Markdown. Text decodes `&lt;` `&gt;` `&amp;`, the
 * serializer's encoding of text (`escapeText` in serialize.ts), so PDF text never becomes markup.
 */
import { isVocabularyTag } from './vocab';

export type Token =
  | { kind: 'text'; value: string }
  | { kind: 'open'; name: string }
  | { kind: 'close'; name: string }
  | { kind: 'loc'; value: number }
  | { kind: 'lang'; value: string };

const LOC_RE = /<loc_(\d{1,6})>/y;
const LANG_RE = /<_([^<>\s_][^<>\s]{0,40}?)_>/y;
const TAG_RE = /<(\/?)([a-z][a-z0-9_]{0,40})>/y;
/**
 * Markup of the real vocabulary that carries no element of its own: key/value/link ids inside a
 * key-value region (`<key_N>`, `<value_N>`, `<link_N>`, `<rec_N>`: granite-docling's tokens are
 * the prefixes `<key_`, `<value_`, … followed by the id as text), `<group>` and `<references>`
 * wrappers. Dropped, their text kept in the surrounding element; a closing key or value leaves a
 * space so "Name" and "Ada" do not run together.
 */
const DROPPED_RE = /<(\/?)(key|value|link|rec|group|references)(?:_(\d{1,6}))?>/y;

/** A location token cut short (`<loc_`, `<loc_12`) anywhere: never text. */
const BROKEN_LOC_RE = /<loc_\d*(?!\d|>)/y;
/** Any tag-like fragment cut off by the end of the input (`<sect`, `</tex`). */
const TAIL_RE = /<\/?[a-z_0-9]*$/y;

const ENTITY: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&' };

/** One pass, left to right: `&amp;lt;` is the text `&lt;`, never `<`. */
function decodeText(text: string): string {
  return text.includes('&') ? text.replace(/&(?:lt|gt|amp);/g, (e) => ENTITY[e]!) : text;
}

export function tokenize(input: string): Token[] {
  const out: Token[] = [];
  let text = '';
  const flush = () => {
    if (text) out.push({ kind: 'text', value: decodeText(text) });
    text = '';
  };
  let i = 0;
  const n = input.length;
  while (i < n) {
    const lt = input.indexOf('<', i);
    if (lt < 0) {
      text += input.slice(i);
      break;
    }
    text += input.slice(i, lt);
    i = lt;
    let m: RegExpExecArray | null;
    LOC_RE.lastIndex = i;
    if ((m = LOC_RE.exec(input))) {
      flush();
      out.push({ kind: 'loc', value: Number(m[1]) });
      i = LOC_RE.lastIndex;
      continue;
    }
    DROPPED_RE.lastIndex = i;
    if ((m = DROPPED_RE.exec(input)) && (m[3] !== undefined) === (m[2] !== 'group' && m[2] !== 'references')) {
      if (m[1] && (m[2] === 'key' || m[2] === 'value')) text += ' ';
      i = DROPPED_RE.lastIndex;
      continue;
    }
    TAG_RE.lastIndex = i;
    if ((m = TAG_RE.exec(input)) && isVocabularyTag(m[2]!)) {
      flush();
      out.push({ kind: m[1] ? 'close' : 'open', name: m[2]! });
      i = TAG_RE.lastIndex;
      continue;
    }
    LANG_RE.lastIndex = i;
    if ((m = LANG_RE.exec(input))) {
      flush();
      out.push({ kind: 'lang', value: m[1]! });
      i = LANG_RE.lastIndex;
      continue;
    }
    BROKEN_LOC_RE.lastIndex = i;
    if ((m = BROKEN_LOC_RE.exec(input))) {
      i = BROKEN_LOC_RE.lastIndex;
      continue;
    }
    TAIL_RE.lastIndex = i;
    if (input.length - i < 48 && TAIL_RE.exec(input)) break;
    // A `<` that starts no DocTags token is text.
    text += '<';
    i += 1;
  }
  flush();
  return out;
}
