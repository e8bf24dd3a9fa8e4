/**
 * The region map of one converted `.md`: for every page region, where its Markdown sits in the
 * document text now (absolute UTF-16 offsets), and the text it had when it was last written.
 *
 * It follows edits of the `.md` (`applyChange`, fed from onDidChangeTextDocument): ranges before
 * an edit stay, ranges after it shift, a range an edit falls inside grows or shrinks, and a region
 * whose whole text was deleted (or replaced together with text outside it) loses its link, while
 * the others keep theirs. When the map and the document may disagree (pages appended by the
 * converter, a `.md` edited while no preview was open), `anchor` finds each region's text again
 * in the document by content.
 *
 * Pure data, no `vscode` import: unit-tested in Node (test/preview/regionMap.test.ts).
 */
import type { BBox, GridBox, PageResult, Region, RegionClass, TextRange } from '../../common/protocol';
import { AnchorIndex } from './regionMapIndex';

export interface MappedRegion {
  id: string;
  page: number;
  cls: RegionClass;
  level?: number;
  bbox: BBox;
  grid: GridBox;
  order: number;
  /** Where the region's Markdown is in the document now; absent = not linked. */
  range?: TextRange;
  /** The region's Markdown as last written (by the converter or a reparse); used to re-anchor. */
  text: string;
  /** The region's DocTags element when known (from a reparse). */
  doctags?: string;
}

export interface MappedPage {
  page: number;
  width: number;
  height: number;
  image?: string;
  imageWidth?: number;
  imageHeight?: number;
  doctags: string;
  /** Where the page's Markdown started in the text as written. */
  mdOffset: number;
  /** The page's Markdown as written. */
  markdown: string;
  ocr: boolean;
  warnings: string[];
  error?: string;
  regions: MappedRegion[];
}

/** One content change, in the form VS Code's `TextDocumentContentChangeEvent` gives. */
export interface TextChange {
  rangeOffset: number;
  rangeLength: number;
  text: string;
}

/** Grid box of a point box on a page (docling-core's rule). */
export function gridOf(b: BBox, width: number, height: number): GridBox {
  const f = (v: number, size: number) => Math.min(499, Math.max(0, Math.round((v / size) * 500)));
  return [f(b.x0, width), f(b.y0, height), f(b.x1, width), f(b.y1, height)];
}

export class RegionMap {
  private readonly pages = new Map<number, MappedPage>();
  private drawn = 0;
  /** Regions the last `anchor` left unlinked because its search budget was spent. */
  lastAnchorSkipped = 0;
  /** Characters the last `anchor`'s searches scanned (tests compare it with the document's length). */
  lastAnchorScanned = 0;

  /** Adds (or replaces) a page from a PageResult whose Markdown starts at `mdOffset` in the text. */
  addPage(p: PageResult, mdOffset: number): MappedPage {
    const regions = p.regions.map((r: Region) => mapRegion(p, r, mdOffset));
    const page: MappedPage = {
      page: p.page,
      width: p.width,
      height: p.height,
      image: p.image,
      imageWidth: p.imageWidth,
      imageHeight: p.imageHeight,
      doctags: p.doctags,
      mdOffset,
      markdown: p.markdown,
      ocr: p.ocr,
      warnings: p.warnings,
      error: p.error,
      regions,
    };
    this.pages.set(p.page, page);
    return page;
  }

  /** Restores a page saved in a sidecar (ranges as saved; call `anchor` afterwards). */
  restorePage(page: MappedPage): void {
    this.pages.set(page.page, page);
    for (const r of page.regions) {
      const m = /^p\d+-n(\d+)$/.exec(r.id);
      if (m) this.drawn = Math.max(this.drawn, Number(m[1]) + 1);
    }
  }

  page(n: number): MappedPage | undefined {
    return this.pages.get(n);
  }

  allPages(): MappedPage[] {
    return [...this.pages.values()].sort((a, b) => a.page - b.page);
  }

  region(id: string): MappedRegion | undefined {
    const m = /^p(\d+)-/.exec(id);
    return m ? this.pages.get(Number(m[1]))?.regions.find((r) => r.id === id) : undefined;
  }

  /** All regions in document order (page, then reading order). */
  allRegions(): MappedRegion[] {
    return this.allPages().flatMap((p) => [...p.regions].sort((a, b) => a.order - b.order));
  }

  /** The linked region whose Markdown contains `offset` (its end counts, so a cursor after the last character finds it). */
  regionAt(offset: number): MappedRegion | undefined {
    for (const r of this.allRegions()) {
      if (r.range && offset >= r.range.start && offset <= r.range.end) return r;
    }
    return undefined;
  }

  /**
   * Follows one content change. Rules (half-open ranges, change replaces [s, e) by `text`):
   * - change after the range: nothing; change before it: shift by the length difference;
   * - an insertion at the range's end joins the region unless it starts a new line (typing at the
   *   end of a paragraph extends it; the converter appending "\n\n" + a page does not);
   *   an insertion at its start joins unless it ends with a newline (a block inserted before);
   * - change inside the range: the end moves; a range emptied by deletion loses its link;
   * - change covering the whole range exactly with new text: the region keeps it (a reparse or paste);
   * - change covering the range and more: the link is lost;
   * - change overlapping one edge: the range shrinks to what is left of its own text.
   */
  applyChange(c: TextChange): void {
    const s = c.rangeOffset;
    const e = c.rangeOffset + c.rangeLength;
    const n = c.text.length;
    const delta = n - (e - s);
    for (const p of this.pages.values()) {
      for (const r of p.regions) {
        if (r.range) r.range = moveRange(r.range, s, e, n, delta, c.text);
      }
    }
  }

  /**
   * Finds each region's text in `doc` again, in document order: first at its expected place
   * (current range), else searching forward from the previous region's end. Regions not found
   * lose their link. Returns how many regions are linked afterwards.
   *
   * The work is linear in the document and the texts whatever the map holds (a sidecar is a
   * workspace file): searches go through an `AnchorIndex`, which skips texts that cannot occur
   * and stops searching when its budget is spent. `lastAnchorSkipped` then says how many regions
   * were left unlinked without a search (0 for any map Folio wrote).
   */
  anchor(doc: string): number {
    let cursor = 0;
    let linked = 0;
    const all = this.allRegions();
    let textChars = 0;
    for (const r of all) textChars += r.text.length;
    const index = new AnchorIndex(doc, textChars);
    this.lastAnchorSkipped = 0;
    for (const r of all) {
      if (!r.text) {
        r.range = undefined;
        continue;
      }
      let at: number | undefined = -1;
      if (r.range && r.range.start >= cursor && doc.startsWith(r.text, r.range.start)) at = r.range.start;
      else at = index.search(r.text, cursor);
      if (at === undefined) this.lastAnchorSkipped++;
      if (at === undefined || at < 0) {
        r.range = undefined;
        continue;
      }
      r.range = { start: at, end: at + r.text.length };
      cursor = r.range.end;
      linked++;
    }
    this.lastAnchorScanned = index.scanned;
    return linked;
  }

  /**
   * Records each linked region's current text as its anchor text, so a later `anchor` (a
   * reopened sidecar, a lost sync) looks for what the user has now, not what was first written.
   */
  captureTexts(doc: string): void {
    for (const p of this.pages.values()) {
      for (const r of p.regions) if (r.range) r.text = doc.slice(r.range.start, r.range.end);
    }
  }

  /** A fresh id for a drawn region on `page`. */
  newRegionId(page: number): string {
    return `p${page}-n${this.drawn++}`;
  }

  /**
   * Adds a drawn region at its reading-order position: after the last region (in order) that
   * starts above it and overlaps it horizontally, or after a region entirely to its left;
   * furniture is not considered. Orders of the page are renumbered.
   */
  addRegion(page: number, bbox: BBox, cls: RegionClass): MappedRegion {
    const p = this.pages.get(page);
    if (!p) throw new Error(`page ${page} is not in the preview`);
    const sorted = [...p.regions].sort((a, b) => a.order - b.order);
    let insertAt = 0;
    sorted.forEach((r, i) => {
      if (r.cls === 'page_header' || r.cls === 'page_footer') return;
      const above = r.bbox.y0 <= bbox.y0 && r.bbox.x0 < bbox.x1 && r.bbox.x1 > bbox.x0;
      const leftColumn = r.bbox.x1 <= bbox.x0;
      if (above || leftColumn) insertAt = i + 1;
    });
    // A page header always stays first.
    while (insertAt < sorted.length && insertAt === 0 && sorted[0]?.cls === 'page_header') insertAt = 1;
    const region: MappedRegion = {
      id: this.newRegionId(page),
      page,
      cls,
      bbox,
      grid: gridOf(bbox, p.width, p.height),
      order: insertAt,
      text: '',
    };
    sorted.splice(insertAt, 0, region);
    sorted.forEach((r, i) => (r.order = i));
    p.regions = sorted;
    return region;
  }

  removeRegion(id: string): MappedRegion | undefined {
    const r = this.region(id);
    if (!r) return undefined;
    const p = this.pages.get(r.page)!;
    p.regions = p.regions.filter((x) => x.id !== id).sort((a, b) => a.order - b.order);
    p.regions.forEach((x, i) => (x.order = i));
    return r;
  }

  /**
   * Where a region without Markdown should have its Markdown inserted: before the next linked
   * region in document order (returns that offset, the block then needs "\n\n" after it), else
   * after the previous linked one ("\n\n" before it), else at `docLength`.
   */
  insertionPoint(id: string, docLength: number): { offset: number; before: boolean } {
    const all = this.allRegions();
    const i = all.findIndex((r) => r.id === id);
    for (let j = i + 1; j < all.length; j++) {
      const r = all[j]!;
      if (r.range) return { offset: r.range.start, before: true };
    }
    for (let j = i - 1; j >= 0; j--) {
      const r = all[j]!;
      if (r.range) return { offset: r.range.end, before: false };
    }
    return { offset: docLength, before: false };
  }
}

function mapRegion(p: PageResult, r: Region, mdOffset: number): MappedRegion {
  const text = r.mdRange ? p.markdown.slice(r.mdRange.start, r.mdRange.end) : '';
  return {
    id: r.id,
    page: p.page,
    cls: r.cls,
    level: r.level,
    bbox: r.bbox,
    grid: r.grid,
    order: r.order,
    range: r.mdRange && text ? { start: mdOffset + r.mdRange.start, end: mdOffset + r.mdRange.end } : undefined,
    text,
  };
}

function moveRange(r: TextRange, s: number, e: number, n: number, delta: number, text: string): TextRange | undefined {
  const insert = s === e;
  if (insert) {
    if (s < r.start) return { start: r.start + delta, end: r.end + delta };
    if (s === r.start) {
      const joins = n > 0 && !text.endsWith('\n');
      return joins ? { start: r.start, end: r.end + delta } : { start: r.start + delta, end: r.end + delta };
    }
    if (s < r.end) return { start: r.start, end: r.end + delta };
    if (s === r.end && n > 0 && !text.startsWith('\n')) return { start: r.start, end: r.end + delta };
    return r;
  }
  if (e <= r.start) return { start: r.start + delta, end: r.end + delta };
  if (s >= r.end) return r;
  if (s >= r.start && e <= r.end) {
    // Inside (or exactly) the range.
    const end = r.end + delta;
    return end > r.start ? { start: r.start, end } : undefined;
  }
  if (s <= r.start && e >= r.end) return undefined; // covers it and more
  if (s < r.start) {
    // Overlaps the start: what is left of the region begins after the new text.
    return { start: s + n, end: r.end + delta };
  }
  // Overlaps the end: the region keeps its part before the change.
  return s > r.start ? { start: r.start, end: s } : undefined;
}
