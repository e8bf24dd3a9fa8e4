/**
 * Drafts written the way the VLM writes, because acceptance depends on it: DocTags blocks
 * (`<tag><loc×4>content</tag>`) rather than plain text, lines unwrapped inside a block, NFKC
 * (ligatures, mathematical letters, full-width forms), soft hyphens, zero-width characters and
 * private-use bullet glyphs dropped, list markers left out of list items.
 *
 * Two entry points: from the pipeline's document model (`pageDraftFromItems`, what the VLM engine
 * uses) and from finished DocTags (`draftBlocksFromDocTags`, what the oracle replay reads from
 * the CLI's output).
 */
import type { DocItem } from '../doctags/types';
import { serializeItem, serializePage } from '../doctags/serialize';

/** Characters the model never writes: soft hyphen, zero-width space/joiners, BOM, private use. */
const INVISIBLE = /[\u00ad\u200b-\u200d\u2060\ufeff\ue000-\uf8ff]/g;
/** Bullet glyphs a list item's text layer starts with; DocTags list items carry no marker. */
const BULLET = /^\s*(?:[•◦▪▫●○■□‣⁃∙·–—*-]|\(?[0-9a-zA-Z]{1,3}[.)])\s+/u;

export interface NormalizeOptions {
  /** Drop a leading list marker (list items). */
  list?: boolean;
  /** Keep line breaks and indentation (code). */
  keepLines?: boolean;
}

export function normalizeDraftText(text: string, opts: NormalizeOptions = {}): string {
  let t = text.normalize('NFKC').replace(INVISIBLE, '');
  if (opts.keepLines) return t;
  // Unwrap: a hyphen at a line end joins the word halves; other line breaks become spaces.
  t = t.replace(/(\p{Ll})-\s*\n\s*(\p{Ll})/gu, '$1$2').replace(/\s+/g, ' ').trim();
  if (opts.list) t = t.replace(BULLET, '');
  return t;
}

/** A copy of an item with its text (and caption and table cells) normalized. */
export function normalizeItem(item: DocItem): DocItem {
  const out: DocItem = {
    ...item,
    text: normalizeDraftText(item.text, { list: item.cls === 'list_item', keepLines: item.cls === 'code' }),
  };
  if (item.caption) out.caption = normalizeItem(item.caption);
  if (item.table) out.table = item.table.map((row) => row.map((c) => ({ tag: c.tag, text: normalizeDraftText(c.text) })));
  return out;
}

/** The page draft: all regions in reading order, as the model writes a page. */
export function pageDraftFromItems(items: readonly DocItem[]): string {
  return '<doctag>' + serializePage(items.map(normalizeItem)) + '\n</doctag>';
}

/** One draft per region (Stage 1 / the unordered draft set of Stage 2). */
export function regionDraftsFromItems(items: readonly DocItem[]): string[] {
  return items.map((it) => serializeItem(normalizeItem(it)));
}

export interface DraftBlock {
  /** Element tag name (`text`, `section_header_level_1`, `otsl`, …). */
  tag: string;
  /** The four `<loc_N>` tokens as written, or '' when absent. */
  locs: string;
  /** Everything between the locations and the closing tag. */
  content: string;
}

const BLOCK_RE = /<([a-z][a-z0-9_]*)>((?:<loc_\d+>){4})?([\s\S]*?)<\/\1>/g;
const WRAPPERS = new Set(['doctag', 'ordered_list', 'unordered_list']);

/** Top-level elements of a page's DocTags (list wrappers looked through). */
export function parseDraftBlocks(doctags: string): DraftBlock[] {
  const blocks: DraftBlock[] = [];
  const body = doctags.replace(/<\/?(?:doctag|ordered_list|unordered_list)>/g, '\n');
  for (const m of body.matchAll(BLOCK_RE)) {
    if (WRAPPERS.has(m[1])) continue;
    blocks.push({ tag: m[1], locs: m[2] ?? '', content: m[3] });
  }
  return blocks;
}

/** Normalize the text of a DocTags block's content, leaving tags (OTSL cells, captions) in place. */
export function normalizeBlockContent(tag: string, content: string): string {
  if (tag === 'code') return content.normalize('NFKC').replace(INVISIBLE, '');
  return content
    .split(/(<[^<>]+>)/)
    .map((part) => (part.startsWith('<') ? part : normalizeDraftText(part, { list: tag === 'list_item' })))
    .join('');
}

export function blockToDocTags(b: DraftBlock): string {
  return `<${b.tag}>${b.locs}${b.content}</${b.tag}>`;
}
