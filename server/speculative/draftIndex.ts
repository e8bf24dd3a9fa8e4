/**
 * The draft matcher: given the tokens accepted so far, find every place in the drafts where the
 * last n non-location tokens occur and propose the tokens that follow (at most K of them).
 *
 * Lookups go through hash maps built once per draft set (one map per key length 1…n), so a step
 * costs O(n + occurrences), not a rescan of the drafts. Location tokens (`<loc_N>`) are left out
 * of the keys: the VLM's boxes rarely equal the pipeline's, and a key that contained them would
 * miss on every block. They are still part of the proposed suffixes, and when the output already
 * holds m location tokens after the key, the first m location tokens after the match are skipped
 * so the proposal lines up with what the model has to write next.
 *
 * Where a location is several BPE pieces (granite-docling's real vocabulary: `<` `loc` `_` `N`
 * `>`, with `>` merged into the next piece), `TokenInfo.locationRoles` marks them by context:
 * every piece of a location is left out of the keys and skipped when aligning, and the value
 * piece `N` is what box distances, calibration and location variants work on. A box is then 16
 * pieces of fixed structure, so skipping the output's trailing location pieces in the draft
 * keeps the two aligned whatever the values.
 */
import type { MatchOptions, TokenInfo } from './types';

/** A draft position: `draft` indexes the draft list, `pos` a token in it. */
export interface DraftPos {
  draft: number;
  pos: number;
}

export interface Candidate {
  /** Proposed continuation (length ≤ K), location tokens included. */
  tokens: number[];
  /** Where the proposal starts in the drafts. */
  at: DraftPos;
  /** Key length that matched (n, or a fallback). */
  keyLength: number;
  /** Sum of |output location − draft location| over the location tokens skipped to align (0 if none). */
  locDistance: number;
  /** Location roles of `tokens` (see `TokenInfo.locationRoles`). */
  roles: Int8Array;
}

/** How far back the output is classified for a lookup (keys are a few tokens; boxes 17 pieces). */
const TAIL = 512;

/** Stands for "start of the sequence" in keys, so the beginning of a draft matches an empty output. */
const BOS = -1;

export const DEFAULT_MATCH: MatchOptions = { n: 3, K: 32, maxChains: 8 };

export class DraftIndex {
  /** maps[k-1]: key of k non-location tokens → positions just after the key's last token. */
  private readonly maps: Map<string, DraftPos[]>[] = [];
  /** Per draft token: its index (0–3) within a box of location values, −1 for other tokens. */
  private readonly coord: Int8Array[] = [];
  /** Per draft token: its location role (−1 none, 0 structural piece, 1 value). */
  private readonly roles: Int8Array[] = [];
  /** Recent (model − draft) differences per box coordinate, for box calibration. */
  private readonly deltas: number[][] = [[], [], [], []];
  private lastObserved = -1;

  constructor(
    readonly drafts: readonly (readonly number[])[],
    private readonly info: TokenInfo,
    readonly n: number = DEFAULT_MATCH.n,
    /**
     * Box calibration: the pipeline's boxes and the model's differ by a steady offset per
     * coordinate (padding and rounding rules differ), so once the model has written boxes for
     * drafted blocks, later drafted boxes are moved by the median recent offset.
     */
    private readonly calibrateBoxes = false,
  ) {
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`draft matcher: key length n must be a positive integer, got ${n}`);
    for (let k = 1; k <= n; k++) this.maps.push(new Map());
    drafts.forEach((d, di) => this.indexDraft(d, di));
  }

  /** The current offset for box coordinate c (0 until the model has written such boxes). */
  shift(c: number): number {
    const ds = this.deltas[c];
    if (!this.calibrateBoxes || ds.length === 0) return 0;
    const s = [...ds].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)];
  }

  private observe(output: readonly number[], trailing: readonly number[], best: Candidate): void {
    if (!this.calibrateBoxes || !this.info.location || output.length === this.lastObserved) return;
    this.lastObserved = output.length;
    const d = this.drafts[best.at.draft];
    const coord = this.coord[best.at.draft];
    for (let j = 0; j < trailing.length; j++) {
      const p = best.at.pos - trailing.length + j;
      if (p < 0 || coord[p] < 0) continue;
      const a = this.info.location(trailing[j]);
      const b = this.info.location(d[p]);
      if (a === undefined || b === undefined || Math.abs(a - b) > 12) continue;
      const list = this.deltas[coord[p]];
      list.push(a - b);
      if (list.length > 5) list.shift();
    }
  }

  /** Draft tokens [from, to) with drafted boxes moved by the calibrated offsets. */
  private proposal(di: number, from: number, to: number): number[] {
    const d = this.drafts[di];
    const out = d.slice(from, to);
    if (!this.calibrateBoxes || !this.info.location || !this.info.locationToken) return out;
    const coord = this.coord[di];
    for (let i = 0; i < out.length; i++) {
      const c = coord[from + i];
      if (c < 0) continue;
      const sh = this.shift(c);
      if (sh === 0) continue;
      const v = this.info.location(out[i]);
      const id = v === undefined ? undefined : this.info.locationToken(Math.min(499, Math.max(0, v + sh)));
      if (id !== undefined) out[i] = id;
    }
    return out;
  }

  /** Location roles of a token sequence (single-token locations: every location is a value). */
  private rolesOf(tokens: readonly number[]): Int8Array {
    if (this.info.locationRoles) return this.info.locationRoles(tokens);
    return Int8Array.from(tokens, (id) => (this.info.isLocation(id) ? 1 : -1));
  }

  private sym(id: number): number {
    return this.info.keySymbol ? this.info.keySymbol(id) : id;
  }

  get size(): number {
    return this.drafts.reduce((s, d) => s + d.length, 0);
  }

  private indexDraft(d: readonly number[], di: number): void {
    // The stream of non-location tokens, with a BOS in front; `after[t]` is the draft position
    // just after stream token t.
    const stream: number[] = [BOS];
    const after: number[] = [0];
    const coord = new Int8Array(d.length).fill(-1);
    const roles = this.rolesOf(d);
    this.roles[di] = roles;
    let run = 0;
    for (let i = 0; i < d.length; i++) {
      if (roles[i] >= 0) {
        if (roles[i] === 1) coord[i] = run++ % 4;
        continue;
      }
      run = 0;
      stream.push(this.sym(d[i]));
      after.push(i + 1);
    }
    this.coord[di] = coord;
    for (let t = 0; t < stream.length; t++) {
      for (let k = 1; k <= this.n && k <= t + 1; k++) {
        const key = keyOf(stream, t - k + 1, t + 1);
        const map = this.maps[k - 1];
        const list = map.get(key);
        const entry = { draft: di, pos: after[t] };
        if (list) list.push(entry);
        else map.set(key, [entry]);
      }
    }
  }

  /**
   * Candidates for continuing `output` (every token accepted so far in this sequence).
   * Tries the full key length first and falls back to shorter keys only when nothing matches.
   * `cursor`, when given, is where the previous accepted proposal ended: a candidate starting
   * there is ranked first (the text usually continues where it left off).
   */
  candidates(output: readonly number[], opts: Pick<MatchOptions, 'K' | 'maxChains'>, cursor?: DraftPos): Candidate[] {
    // Walk back over trailing location tokens, then collect up to n non-location key tokens.
    // Only the output's tail is classified (roles depend on a few neighbours only).
    const start = Math.max(0, output.length - TAIL);
    const outRoles = this.rolesOf(output.slice(start));
    const isLoc = (i: number) => outRoles[i - start] >= 0;
    const trailingLocs: number[] = [];
    let i = output.length - 1;
    while (i >= start && isLoc(i)) trailingLocs.unshift(output[i--]);
    const keyTokens: number[] = [];
    for (; i >= start && keyTokens.length < this.n; i--) {
      if (!isLoc(i)) keyTokens.unshift(this.sym(output[i]));
    }
    if (keyTokens.length < this.n && i < 0) keyTokens.unshift(BOS);

    for (let k = Math.min(this.n, keyTokens.length); k >= 1; k--) {
      const hits = this.maps[k - 1].get(keyOf(keyTokens, keyTokens.length - k, keyTokens.length));
      if (!hits) continue;
      const found = this.collect(hits, trailingLocs, k, opts.K);
      if (found.length === 0) continue;
      const ranked = rank(found, opts.maxChains, cursor);
      if (trailingLocs.length > 0) this.observe(output, trailingLocs, ranked[0]);
      return ranked;
    }
    return [];
  }

  private collect(hits: readonly DraftPos[], trailingLocs: readonly number[], k: number, K: number): Candidate[] {
    const out: Candidate[] = [];
    const seen = new Set<string>();
    for (const h of hits) {
      const d = this.drafts[h.draft];
      let p = h.pos;
      let locDistance = 0;
      // Skip as many draft locations as the output already wrote after the key.
      const coord = this.coord[h.draft];
      const roles = this.roles[h.draft];
      for (const loc of trailingLocs) {
        if (p >= d.length || roles[p] < 0) break;
        const a = this.info.location?.(loc);
        const b = this.info.location?.(d[p]);
        if (a !== undefined && b !== undefined && coord[p] >= 0) locDistance += Math.abs(a - b - this.shift(coord[p]));
        p++;
      }
      if (p >= d.length) continue;
      const tokens = this.proposal(h.draft, p, p + K);
      // Identical proposals from repeated text add nothing to the tree.
      const sig = tokens.join(',');
      if (seen.has(sig)) continue;
      seen.add(sig);
      out.push({
        tokens,
        at: { draft: h.draft, pos: p },
        keyLength: k,
        locDistance,
        roles: roles.slice(p, p + tokens.length),
      });
    }
    return out;
  }
}

function keyOf(tokens: readonly number[], from: number, to: number): string {
  let s = '';
  for (let i = from; i < to; i++) s += (i > from ? ',' : '') + tokens[i];
  return s;
}

/**
 * Keep the `maxChains` most promising candidates: the one continuing at the cursor first, then
 * the closest locations (the model's box picks the block when the order differs), then the
 * longest, then draft order (stable, so runs are reproducible).
 */
function rank(found: Candidate[], maxChains: number, cursor?: DraftPos): Candidate[] {
  const atCursor = (c: Candidate) => (cursor && c.at.draft === cursor.draft && c.at.pos === cursor.pos ? 0 : 1);
  const order = found.map((c, i) => ({ c, i }));
  order.sort(
    (a, b) =>
      atCursor(a.c) - atCursor(b.c) ||
      a.c.locDistance - b.c.locDistance ||
      b.c.tokens.length - a.c.tokens.length ||
      a.i - b.i,
  );
  return order.slice(0, Math.max(1, maxChains)).map((x) => x.c);
}

/**
 * Extra short candidates for a proposal that starts with a box (location tokens): the same box
 * with one of its values moved by ±1 … ±spread grid steps, then the rest of the proposal up to
 * VARIANT_TAIL tokens past the box. The prefix tree shares everything before the moved value
 * with the main proposal, so a variant adds at most a dozen scored tokens; a hit keeps the pass
 * going instead of ending it at that value.
 */
const VARIANT_TAIL = 8;

export function locationVariants(best: Candidate, info: TokenInfo, spread: number): Candidate[] {
  if (spread <= 0 || !info.location || !info.locationToken) return [];
  const out: Candidate[] = [];
  // The box the proposal starts with: its pieces up to the first non-location token, at most
  // four values.
  let end = 0;
  let values = 0;
  while (end < best.tokens.length && best.roles[end] >= 0 && values < 4) {
    if (best.roles[end] === 1) values++;
    end++;
  }
  if (end < best.tokens.length && best.roles[end] === 0) end++; // the box's closing '>'
  for (let j = 0; j < end; j++) {
    if (best.roles[j] !== 1) continue;
    const v = info.location(best.tokens[j]);
    if (v === undefined) continue;
    for (let d = 1; d <= spread; d++) {
      for (const w of [v - d, v + d]) {
        const id = w >= 0 ? info.locationToken(w) : undefined;
        if (id === undefined) continue;
        const tokens = [...best.tokens.slice(0, j), id, ...best.tokens.slice(j + 1, end + VARIANT_TAIL)];
        out.push({ ...best, tokens, roles: best.roles.slice(0, tokens.length) });
      }
    }
  }
  return out;
}
