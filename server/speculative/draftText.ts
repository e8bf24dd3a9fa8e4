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
import type { DocItem } from '../model/items';
import type { GridBox } from '../../common/protocol';
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
  t = t
    .replace(/(\p{Ll})-\s*\n\s*(\p{Ll})/gu, '$1$2')
    .replace(/\s+/g, ' ')
    .trim();
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
  if (item.table)
    out.table = item.table.map((row) => row.map((c) => ({ tag: c.tag, text: normalizeDraftText(c.text) })));
  return out;
}

/** A bullet glyph standing alone (the pipeline sometimes makes the marker its own block). */
const LONE_BULLET = /^[•◦▪▫●○■□‣⁃∙·–—*-]$/u;

function union(a: GridBox, b: GridBox): GridBox {
  return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])];
}

/**
 * A block holding only a bullet glyph followed by a block of text is one list item, as the model
 * writes it: its box spans both (the model's list-item box starts at the marker).
 */
export function mergeBulletItems(items: readonly DocItem[]): DocItem[] {
  const out: DocItem[] = [];
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    const next = items[i + 1];
    if (next && LONE_BULLET.test(normalizeDraftText(it.text)) && next.cls !== 'table' && next.cls !== 'picture') {
      out.push({
        ...next,
        cls: 'list_item',
        ordered: false,
        level: next.level ?? 0,
        grid: it.grid && next.grid ? union(it.grid, next.grid) : next.grid,
      });
      i++;
    } else out.push(it);
  }
  return out;
}

/** The page draft: all regions in reading order, as the model writes a page. */
export function pageDraftFromItems(items: readonly DocItem[]): string {
  return '<doctag>' + serializePage(mergeBulletItems(items).map(normalizeItem)) + '\n</doctag>';
}

/** One draft per region (Stage 1 / the unordered draft set of Stage 2). */
export function regionDraftsFromItems(items: readonly DocItem[]): string[] {
  return mergeBulletItems(items).map((it) => serializeItem(normalizeItem(it)));
}

/** The same merge on DocTags blocks (the oracle reads the CLI's DocTags, not items). */
export function mergeBulletBlocks(blocks: readonly DraftBlock[]): (DraftBlock & { list?: 'unordered_list' })[] {
  const out: (DraftBlock & { list?: 'unordered_list' })[] = [];
  const grid = (locs: string) => (locs.match(/\d+/g) ?? []).map(Number) as GridBox;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    const next = blocks[i + 1];
    const text = normalizeDraftText(b.content.replace(/<[^<>]+>/g, ''));
    if (next && LONE_BULLET.test(text) && next.tag !== 'otsl' && next.tag !== 'picture') {
      const locs =
        b.locs && next.locs
          ? union(grid(b.locs), grid(next.locs))
              .map((v) => `<loc_${v}>`)
              .join('')
          : next.locs;
      out.push({
        tag: 'list_item',
        locs,
        content: normalizeBlockContent('list_item', next.content),
        list: 'unordered_list',
      });
      i++;
    } else out.push(b);
  }
  return out;
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
