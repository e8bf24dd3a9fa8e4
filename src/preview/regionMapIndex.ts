/**
 * An index of the `.md` text that lets `RegionMap.anchor` find region texts again in time linear
 * in the document, whatever a (possibly hostile) sidecar holds.
 *
 * `anchor` looks for each region's text from a cursor that only moves forward. A text found costs
 * the stretch it skipped (all such stretches together are at most the document), but a text not
 * found costs a scan to the end of the document; with many unfound regions that was
 * regions × document (a 9 MB sidecar beside a 1 MB `.md`: 55 s on the extension host's thread).
 * So a search is made only when it can succeed and while a work budget lasts:
 *
 * - `mayOccurFrom(text, from)`: a necessary condition for `text` to occur at or after `from`. It
 *   keeps, for every 8-code-unit window of the document (hashed into a fixed table), the last
 *   position where a window with that hash starts, and the last position of every code unit. If
 *   `text` occurs at p ≥ from, each of its windows at offset j occurs at p + j ≥ from + j, so a
 *   window whose last position is smaller proves the text absent. Hash collisions only keep the
 *   larger position, so the test never says "absent" wrongly; it can say "may occur" wrongly,
 *   which the budget bounds.
 * - `search`: `doc.indexOf(text, from)` charged to a budget of characters scanned (a few times
 *   the document plus the texts). A map from a real document (regions found, some deleted) stays
 *   far below it; when it runs out the remaining regions are not searched (they stay unlinked and
 *   the caller is told how many).
 *
 * Pure data, no `vscode` import.
 */

/** Window length of the hashed table (code units). */
const WINDOW = 8;
/** Table size: 2^20 buckets of Int32 (4 MB), fixed whatever the document's size. */
const TABLE_BITS = 20;
/** Work allowed for searches, in characters scanned: this many times the document, plus the texts. */
export const ANCHOR_BUDGET_FACTOR = 8;
/** Extra work allowed whatever the document's size (small documents, many short texts). */
const ANCHOR_BUDGET_FLOOR = 4 * 1024 * 1024;

const BASE = 0x01000193;

export class AnchorIndex {
  private windows?: Int32Array;
  private units?: Int32Array;
  private budget: number;
  /** Characters scanned by searches so far (tests read it). */
  scanned = 0;
  /** Texts already proven absent from some cursor on: the cursor only grows, so they stay absent. */
  private readonly absent = new Set<string>();

  constructor(
    private readonly doc: string,
    totalTextChars: number,
  ) {
    this.budget = ANCHOR_BUDGET_FACTOR * doc.length + totalTextChars + ANCHOR_BUDGET_FLOOR;
  }

  /** True when the budget is spent: no further search is made. */
  get exhausted(): boolean {
    return this.scanned >= this.budget;
  }

  /**
   * Where `text` first occurs at or after `from`, or -1 when it does not, or undefined when the
   * budget is spent and it was not searched.
   */
  search(text: string, from: number): number | undefined {
    if (this.absent.has(text) || !this.mayOccurFrom(text, from)) {
      this.absent.add(text);
      return -1;
    }
    if (this.exhausted) return undefined;
    const at = this.doc.indexOf(text, from);
    this.scanned += at < 0 ? this.doc.length - from : at - from + text.length;
    if (at < 0) this.absent.add(text);
    return at;
  }

  /** False only when `text` cannot occur at or after `from` (see the module comment). */
  mayOccurFrom(text: string, from: number): boolean {
    if (from + text.length > this.doc.length) return false;
    this.build();
    const units = this.units!;
    for (let j = 0; j < text.length; j++) if (units[text.charCodeAt(j)]! < from + j) return false;
    if (text.length < WINDOW) return true;
    const windows = this.windows!;
    let h = 0;
    for (let j = 0; j < WINDOW; j++) h = (Math.imul(h, BASE) + text.charCodeAt(j)) | 0;
    const drop = powBase(WINDOW - 1);
    for (let j = 0; ; j++) {
      if (windows[h >>> (32 - TABLE_BITS)]! < from + j) return false;
      if (j + WINDOW >= text.length) return true;
      h = (Math.imul(h - Math.imul(text.charCodeAt(j), drop), BASE) + text.charCodeAt(j + WINDOW)) | 0;
    }
  }

  /** Builds the tables on first use: one pass over the document. */
  private build(): void {
    if (this.units) return;
    const doc = this.doc;
    const units = new Int32Array(0x10000).fill(-1);
    for (let i = 0; i < doc.length; i++) units[doc.charCodeAt(i)] = i;
    const windows = new Int32Array(1 << TABLE_BITS).fill(-1);
    if (doc.length >= WINDOW) {
      let h = 0;
      for (let j = 0; j < WINDOW; j++) h = (Math.imul(h, BASE) + doc.charCodeAt(j)) | 0;
      const drop = powBase(WINDOW - 1);
      for (let i = 0; ; i++) {
        // Positions only grow, so the last write to a bucket is its largest position.
        windows[h >>> (32 - TABLE_BITS)] = i;
        if (i + WINDOW >= doc.length) break;
        h = (Math.imul(h - Math.imul(doc.charCodeAt(i), drop), BASE) + doc.charCodeAt(i + WINDOW)) | 0;
      }
    }
    this.units = units;
    this.windows = windows;
  }
}

function powBase(n: number): number {
  let p = 1;
  for (let i = 0; i < n; i++) p = Math.imul(p, BASE);
  return p;
}
