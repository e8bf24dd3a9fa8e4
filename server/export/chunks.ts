/**
 * Retrieval chunks in the style of Docling's hierarchical chunker: the document is cut at its
 * headings; each chunk carries the heading path above it, its pages, its items' boxes and kinds.
 * Consecutive items under one heading are packed together up to a size limit (characters or
 * cl100k tokens, like Docling's hybrid chunker); an item larger than the limit is split at
 * sentence and then word boundaries — never inside a word — and a table is split between rows —
 * never inside a cell or a merged cell — with its header rows repeated in every piece.
 * docs/formats.md describes the output.
 */
import type { BBox, RegionClass } from '../../common/protocol';
import type { DocItem, OtslCell } from '../model/items';
import { renderRegionMarkdown } from '../doctags/markdown';
import { tableToMarkdown, rectangular } from '../doctags/mdTable';
import type { ExportPage } from './pages';

export interface ChunkBox {
  page: number;
  /** Points, bottom-left origin (as in the DoclingDocument export). */
  l: number;
  t: number;
  r: number;
  b: number;
  coord_origin: 'BOTTOMLEFT';
}

export interface Chunk {
  /** 0-based position in the document. */
  index: number;
  /** The chunk's content as Markdown (tables as Markdown tables). */
  text: string;
  /** Title and section headers above the chunk, outermost first. */
  headings: string[];
  pages: number[];
  boxes: ChunkBox[];
  /** Classes of the items in the chunk, in order, without repeats. */
  kinds: RegionClass[];
  /** Size of `text` in the chosen unit. */
  size: number;
  /** For a piece of a split table: its body rows (0-based, end exclusive) out of `of`. */
  tableRows?: { start: number; end: number; of: number };
  /**
   * Set when the chunk is over the limit: one word or one table row alone is larger than it
   * (kept whole), or the headings alone fill it. The limit bounds the headings and the text
   * together (`contextualizedChunk`), as HybridChunker counts.
   */
  oversize?: true;
}

export interface ChunkOptions {
  maxSize: number;
  unit: 'chars' | 'tokens';
  /** Token counter for `unit: 'tokens'` (cl100k by default, see `cl100kCounter`). */
  countTokens?: (text: string) => number;
  keepFurniture?: boolean;
  /**
   * HierarchicalChunker's cuts: every item its own chunk (a list's consecutive items together),
   * nothing packed; give a `maxSize` no item reaches (Number.MAX_SAFE_INTEGER).
   */
  perItem?: boolean;
}

/** cl100k_base token counts (js-tiktoken, the vocabulary of common embedding models). */
export function cl100kCounter(): (text: string) => number {
  // Loaded on demand: the rank table is large and only this unit needs it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Tiktoken } = require('js-tiktoken/lite') as typeof import('js-tiktoken/lite');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ranks = require('js-tiktoken/ranks/cl100k_base') as { default?: unknown };
  const enc = new Tiktoken((ranks.default ?? ranks) as ConstructorParameters<typeof Tiktoken>[0]);
  return (text) => enc.encode(text).length;
}

/**
 * Which page item a chunk's text came from, and which part of it: `all` (the item with its
 * caption, as its Markdown shows it), `item` (a piece without the caption: a table's rows, a
 * code block's lines) or `caption` (a split table's caption, which goes first on its own).
 * The Docling chunk shape turns these into `doc_items` references (doclingChunks.ts).
 */
export interface ChunkSource {
  item: DocItem;
  part: 'all' | 'item' | 'caption';
}

interface Piece {
  text: string;
  item: DocItem;
  source: ChunkSource;
  page: ExportPage;
  tableRows?: { start: number; end: number; of: number };
  oversize?: boolean;
}

function box(b: BBox | undefined, page: ExportPage): ChunkBox | undefined {
  if (!b) return undefined;
  const r = (v: number) => Math.round(v * 100) / 100;
  return {
    page: page.page,
    l: r(b.x0),
    t: r(page.height - b.y0),
    r: r(b.x1),
    b: r(page.height - b.y1),
    coord_origin: 'BOTTOMLEFT',
  };
}

/**
 * The largest `n` in 1…`count` for which `fits(n)` holds (`fits` true up to some n, then false),
 * 1 when none does, searched from `guess` outwards: steps doubling away from it, then halving.
 * With a good guess it costs two measurements; with none (1) O(log n). Each split below measures
 * its pieces this way, instead of growing a piece word by word and measuring it each time, which
 * cost words × max_tokens (security round 4, N2: a 120,000-character paragraph at max_tokens
 * 16,000 took 460 s).
 */
export function longestFit(count: number, fits: (n: number) => boolean, guess = 1): number {
  if (count <= 1) return Math.min(1, count);
  let lo: number; // fits(lo), or 0
  let hi: number; // !fits(hi), or count + 1
  const g = Math.max(1, Math.min(count, Math.round(guess)));
  if (fits(g)) {
    lo = g;
    let step = 1;
    while (lo + step <= count && fits(lo + step)) {
      lo += step;
      step *= 2;
    }
    hi = Math.min(lo + step, count + 1);
  } else {
    hi = g;
    let step = 1;
    while (hi - step >= 1 && !fits(hi - step)) {
      hi -= step;
      step *= 2;
    }
    lo = Math.max(hi - step, 0);
  }
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return Math.max(lo, 1);
}

/**
 * Splits text into pieces within `max`, at sentence ends if it can, else between words.
 * `unit(' ' + word)` (the counter without headings), when given, guesses where a piece ends from
 * the words' own sizes (cl100k never merges across a space before a word, so the guess is
 * usually exact); `size` decides.
 */
export function splitText(
  text: string,
  max: number,
  size: (s: string) => number,
  unit?: (s: string) => number,
): { text: string; oversize: boolean }[] {
  const words = text.split(/\s+/).filter(Boolean);
  const out: { text: string; oversize: boolean }[] = [];
  const piece = (from: number, n: number) => words.slice(from, from + n).join(' ');
  // Running sums of each word's size after a space: the guess of a piece's size is a difference.
  const sum = new Float64Array(words.length + 1);
  for (let j = 0; j < words.length; j++) sum[j + 1] = sum[j]! + (unit ? unit(' ' + words[j]!) : 0);
  /** The guessed size of words[i, i+k): the first word measured alone, the rest from the sums. */
  const guessSize = (i: number, first: number, k: number) => first + sum[i + k]! - sum[i + 1]!;
  /** The index of the first of `ks` (ascending piece lengths, or 1…ks when a number) whose guess passes `limit`. */
  const firstOver = (i: number, first: number, limit: number, ks: number[] | number) => {
    const at = (m: number) => (typeof ks === 'number' ? m + 1 : ks[m]!);
    let lo = 0;
    let hi = typeof ks === 'number' ? ks : ks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (guessSize(i, first, at(mid)) > limit) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  for (let i = 0; i < words.length;) {
    const left = words.length - i;
    const first = unit ? size(words[i]!) : 0;
    let guess = 1;
    if (unit) guess = Math.max(1, firstOver(i, first, max, left));
    // As many words as fit (a word too large alone is a piece of its own) …
    let n = longestFit(left, (k) => size(piece(i, k)) <= max, guess);
    // … cut sooner at the first sentence end where the piece is at least half full.
    const ends: number[] = [];
    for (let k = 1; k <= n; k++) if (/[.!?]["')\]]*$/.test(words[i + k - 1]!)) ends.push(k);
    if (ends.length > 0 && size(piece(i, ends[ends.length - 1]!)) >= max / 2) {
      // j-th end from the last: the half-full test holds for j = 1 and up to the first end that passes it.
      const halfGuess = unit ? ends.length - firstOver(i, first, max / 2 - 0.5, ends) : 1;
      const j = longestFit(ends.length, (m) => size(piece(i, ends[ends.length - m]!)) >= max / 2, halfGuess);
      n = ends[ends.length - j]!;
    }
    const t = piece(i, n);
    out.push({ text: t, oversize: size(t) > max });
    i += n;
  }
  return out;
}

/** Splits code between lines; each piece rendered by `wrap` (its fence). A line too long alone is kept whole. */
export function splitLines(
  code: string,
  max: number,
  size: (s: string) => number,
  wrap: (t: string) => string,
): { text: string; oversize: boolean }[] {
  const out: { text: string; oversize: boolean }[] = [];
  const lines = code.replace(/\s+$/, '').split('\n');
  const piece = (from: number, n: number) => wrap(lines.slice(from, from + n).join('\n'));
  // Pieces of one block are alike: the last piece's line count is the next one's guess.
  let guess = 1;
  for (let i = 0; i < lines.length;) {
    const n = longestFit(lines.length - i, (k) => size(piece(i, k)) <= max, guess);
    const t = piece(i, n);
    out.push({ text: t, oversize: size(t) > max });
    i += n;
    guess = n;
  }
  return out;
}

/** Tokens a join may add beyond the two sides' own counts (a tokenizer can merge across it). */
const JOIN_SLACK = 4;

const MERGE_DOWN = new Set(['ucel', 'xcel']);

/**
 * Splits a table between rows: header rows (leading rows of `ched` cells; else the first row,
 * which Markdown shows as the header) are repeated in every piece; rows joined by a merged cell
 * stay together.
 */
export function splitTable(
  rows: OtslCell[][],
  max: number,
  size: (s: string) => number,
): { text: string; start: number; end: number; of: number; oversize: boolean }[] {
  const rect = rectangular(rows);
  let head = 0;
  while (head < rect.length && rect[head]!.some((c) => c.tag === 'ched') && rect[head]!.every((c) => c.tag !== 'fcel'))
    head++;
  if (head === 0) head = Math.min(1, rect.length);
  // Rows joined by a vertical merge belong to one block.
  while (head < rect.length && rect[head]!.some((c) => MERGE_DOWN.has(c.tag))) head++;
  const header = rect.slice(0, head);
  const body = rect.slice(head);
  const blocks: [number, number][] = [];
  for (let r = 0; r < body.length; r++) {
    if (r > 0 && body[r]!.some((c) => MERGE_DOWN.has(c.tag))) blocks[blocks.length - 1]![1] = r + 1;
    else blocks.push([r, r + 1]);
  }
  const render = (s: number, e: number) => tableToMarkdown([...header, ...body.slice(s, e)]);
  const out: { text: string; start: number; end: number; of: number; oversize: boolean }[] = [];
  // Pieces of one table are alike: the last piece's block count is the next one's guess.
  let guess = 1;
  for (let i = 0; i < blocks.length;) {
    const start = blocks[i]![0];
    const n = longestFit(blocks.length - i, (k) => size(render(start, blocks[i + k - 1]![1])) <= max, guess);
    guess = n;
    const end = blocks[i + n - 1]![1];
    out.push({ text: render(start, end), start, end, of: body.length, oversize: false });
    i += n;
  }
  if (out.length === 0) out.push({ text: render(0, 0), start: 0, end: 0, of: body.length, oversize: false });
  for (const p of out) p.oversize = size(p.text) > max;
  return out;
}

export function chunkDocument(pages: readonly ExportPage[], opts: ChunkOptions): Chunk[] {
  return chunkDocumentWithSources(pages, opts).map((c) => c.chunk);
}

/** The pieces' texts joined as one chunk: a list's items line by line, anything else by a blank line. */
function joinPieces(ps: Piece[]): string {
  let t = '';
  ps.forEach((p, i) => {
    if (i > 0) t += p.item.cls === 'list_item' && ps[i - 1]!.item.cls === 'list_item' ? '\n' : '\n\n';
    t += p.text;
  });
  return t;
}

/**
 * The chunker as it walks the document: the heading path above the current item, the pieces of
 * the chunk being packed, and the chunks (with their sources) made so far.
 */
class ChunkPacker {
  readonly chunks: Chunk[] = [];
  readonly sources: ChunkSource[][] = [];
  /** Per chunk: the size of its `contextualizedChunk` (headings and text), what the limit bounds. */
  readonly contextSizes: number[] = [];
  /** The size the limit bounds under the current headings (`sizeUnder`). */
  fitSize: (s: string) => number;
  /** The size of a text on its own (no headings): splitText's guesses. */
  get unitSize(): (s: string) => number {
    return this.size;
  }
  /** headings[0] = title, headings[L] = section header of level L. */
  private path: string[] = [];
  private open: Piece[] = [];
  private openHeadings: string[] = [];
  /** The open chunk's size under its headings: measured, plus the pieces joined since (see `fits`). */
  private openSize = 0;
  private unmeasured = 0;

  constructor(
    private readonly size: (s: string) => number,
    readonly max: number,
    private readonly perItem: boolean | undefined,
  ) {
    this.fitSize = this.sizeUnder([]);
  }

  /**
   * The size the limit bounds: the chunk as docling-core's `contextualize()` gives it (its
   * headings, one per line, then its text), which is what HybridChunker counts against
   * `max_tokens` and what an embedding model reads. Headings that alone fill the limit are left
   * out of the count, as HybridChunker then leaves them out of the chunk.
   */
  private sizeUnder(headings: string[]): (s: string) => number {
    const size = this.size;
    if (headings.length === 0) return size;
    const head = headings.join('\n') + '\n';
    if (size(head) >= this.max) return size;
    return (s) => size(head + s);
  }

  /** A title (level 0) or section header: the chunk so far ends, and the path is cut below it. */
  heading(text: string, level: number): void {
    this.flush();
    this.path = this.path.slice(0, level);
    this.path[level] = text;
    this.fitSize = this.sizeUnder(this.path.filter(Boolean));
  }

  /** Packs a piece into the open chunk, or starts a new one when it does not fit; `alone`: a chunk of its own. */
  add(p: Piece, alone: boolean): void {
    const open = this.open;
    const prev = open[open.length - 1];
    const ownChunk = this.perItem && prev && !(prev.item.cls === 'list_item' && p.item.cls === 'list_item');
    if (alone || ownChunk || (open.length > 0 && !this.fits(p))) this.flush();
    if (this.open.length === 0) {
      this.openHeadings = this.path.filter(Boolean);
      this.openSize = this.fitSize(p.text);
      this.unmeasured = 0;
    }
    this.open.push(p);
    if (alone) this.flush();
  }

  /**
   * Whether `p` joins the open chunk within the limit. The chunk's size is kept as a running
   * count (its size when last measured, plus each piece joined since with its separator), and
   * the whole chunk is measured again only when that count, allowing `JOIN_SLACK` per unmeasured
   * join for what a tokenizer does across a join, comes near the limit: packing n small items no
   * longer measures the chunk n times (O(n × chunk), security round 4, N2), yet every decision
   * near the limit is made on the measured size.
   */
  private fits(p: Piece): boolean {
    const prev = this.open[this.open.length - 1]!;
    const sep = p.item.cls === 'list_item' && prev.item.cls === 'list_item' ? '\n' : '\n\n';
    const guess = this.openSize + this.size(sep + p.text);
    if (guess + JOIN_SLACK * (this.unmeasured + 1) <= this.max) {
      this.openSize = guess;
      this.unmeasured++;
      return true;
    }
    const measured = this.fitSize(joinPieces([...this.open, p]));
    if (measured > this.max) return false;
    this.openSize = measured;
    this.unmeasured = 0;
    return true;
  }

  /** Ends the open chunk, if any. */
  flush(): void {
    const open = this.open;
    if (open.length === 0) return;
    const chunk = this.chunkOf(open);
    this.chunks.push(chunk);
    const contextSize = this.size(contextualizedChunk(chunk.headings, chunk.text));
    this.contextSizes.push(contextSize);
    // Over the limit with its headings: a word, line or row too large alone, or headings that fill it.
    if (open.some((p) => p.oversize) || contextSize > this.max) chunk.oversize = true;
    const src: ChunkSource[] = [];
    for (const p of open)
      if (!src.some((s) => s.item === p.source.item && s.part === p.source.part)) src.push(p.source);
    this.sources.push(src);
    this.open = [];
  }

  private chunkOf(open: Piece[]): Chunk {
    const text = joinPieces(open);
    const kinds: RegionClass[] = [];
    const pagesOf: number[] = [];
    const boxes: ChunkBox[] = [];
    for (const p of open) {
      if (!kinds.includes(p.item.cls)) kinds.push(p.item.cls);
      if (!pagesOf.includes(p.page.page)) pagesOf.push(p.page.page);
      const b = box(p.item.bbox, p.page);
      if (b && !boxes.some((x) => x.page === b.page && x.l === b.l && x.t === b.t && x.r === b.r && x.b === b.b))
        boxes.push(b);
    }
    const c: Chunk = {
      index: this.chunks.length,
      text,
      headings: this.openHeadings,
      pages: pagesOf,
      boxes,
      kinds,
      size: this.size(text),
    };
    if (open.length === 1 && open[0]!.tableRows) c.tableRows = open[0]!.tableRows;
    return c;
  }
}

/** A table: whole if it fits; else pieces of whole rows, each alone in its chunk, the caption first. */
function addTable(packer: ChunkPacker, item: DocItem, rows: OtslCell[][], page: ExportPage): void {
  const caption = item.caption?.text.trim();
  const whole = renderRegionMarkdown(item);
  if (packer.fitSize(whole) <= packer.max) {
    packer.add({ text: whole, item, source: { item, part: 'all' }, page }, false);
    return;
  }
  if (caption)
    packer.add({ text: caption, item: { ...item, cls: 'caption' }, source: { item, part: 'caption' }, page }, false);
  packer.flush();
  for (const t of splitTable(rows, packer.max, packer.fitSize))
    packer.add(
      {
        text: t.text,
        item,
        source: { item, part: 'item' },
        page,
        tableRows: { start: t.start, end: t.end, of: t.of },
        oversize: t.oversize,
      },
      true,
    );
}

/** Any other item: whole if it fits; else code between lines (a fence around each piece), anything else between words. */
function addText(packer: ChunkPacker, item: DocItem, page: ExportPage): void {
  // Pictures contribute their caption (a link or an embedded image means nothing to an index).
  const text =
    item.cls === 'picture' || item.cls === 'chart' ? (item.caption?.text.trim() ?? '') : renderRegionMarkdown(item);
  if (!text.trim()) return;
  const { max, fitSize } = packer;
  if (fitSize(text) <= max) {
    packer.add({ text, item, source: { item, part: 'all' }, page }, false);
    return;
  }
  const parts =
    item.cls === 'code'
      ? splitLines(item.text, max, fitSize, (t) => renderRegionMarkdown({ ...item, text: t, caption: undefined }))
      : splitText(text, max, fitSize, packer.unitSize);
  // A code block's pieces leave its caption out; split text keeps it (the caption is part of `text`).
  const part = item.cls === 'code' ? 'item' : 'all';
  for (const s of parts) packer.add({ text: s.text, item, source: { item, part }, page, oversize: s.oversize }, false);
}

/** One page item: a heading moves the path; furniture is left out unless kept; the rest is packed. */
function addItem(packer: ChunkPacker, item: DocItem, page: ExportPage, opts: ChunkOptions): void {
  if (item.cls === 'title' || item.cls === 'section_header') {
    const text = item.text.replace(/\s+/g, ' ').trim();
    if (text) packer.heading(text, item.cls === 'title' ? 0 : Math.max(1, Math.round(item.level ?? 1)));
    return;
  }
  if ((item.cls === 'page_header' || item.cls === 'page_footer') && !opts.keepFurniture) return;
  if ((item.cls === 'table' || item.cls === 'document_index') && item.table && item.table.length > 0)
    addTable(packer, item, item.table, page);
  else addText(packer, item, page);
}

/**
 * `chunkDocument`, with the page items each chunk was made from (in order, without repeats) and
 * the size of the chunk as docling-core's `contextualize()` gives it (`contextualizedChunk`).
 */
export function chunkDocumentWithSources(
  pages: readonly ExportPage[],
  opts: ChunkOptions,
): { chunk: Chunk; sources: ChunkSource[]; contextSize: number }[] {
  const size = opts.unit === 'tokens' ? (opts.countTokens ?? cl100kCounter()) : (s: string) => s.length;
  const packer = new ChunkPacker(size, opts.maxSize, opts.perItem);
  for (const page of pages) for (const item of page.items) addItem(packer, item, page, opts);
  packer.flush();
  return packer.chunks.map((chunk, i) => ({
    chunk,
    sources: packer.sources[i]!,
    contextSize: packer.contextSizes[i]!,
  }));
}

/**
 * The chunk as docling-core's `contextualize()` gives it and its chunkers size it: the headings,
 * one per line, then the text (what LangChain's DoclingLoader embeds as `page_content`).
 */
export function contextualizedChunk(headings: readonly string[], text: string): string {
  return [...headings, text].join('\n');
}

/** JSON Lines: one chunk per line. */
export function chunksToJsonl(chunks: readonly Chunk[]): string {
  return chunks.map((c) => JSON.stringify(c)).join('\n') + (chunks.length > 0 ? '\n' : '');
}
