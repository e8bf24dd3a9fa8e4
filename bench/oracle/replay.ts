/**
 * Oracle replay: run the real speculative loop (the same `SpecDecoder`, matcher, prefix tree and
 * adaptive budget as decoding) against a known target token sequence instead of a model, as if
 * the model had written exactly that sequence. Hardware-independent: it counts decoder passes.
 *
 * Each pass ends at the first target token no proposed chain had (the model's own "bonus"
 * token); that token names why the pass ended, in this order: the chain simply ran out (`K cap`),
 * a location token, inside a table, inside a formula, a DocTags tag, text that exists in the
 * drafts but was not proposed here (`reading order`), a whitespace/punctuation piece
 * (`separators`), other text the drafts lack (`text`).
 */
import { DEFAULT_MATCH, DraftIndex } from '../../server/speculative/draftIndex';
import { SpecDecoder } from '../../server/speculative/decode';
import type { TreeNode } from '../../server/speculative/prefixTree';
import type { DecodeOptions, TokenInfo } from '../../server/speculative/types';
import type { TokenizedDocTags } from './doctagsTokenizer';

export const CAUSES = ['K cap', 'locations', 'tables', 'math', 'tags', 'reading order', 'separators', 'text'] as const;
export type Cause = (typeof CAUSES)[number];

export interface ReplayStats {
  passes: number;
  generated: number;
  accepted: number;
  /** Tokens scored by the decoder over all chains (the compute the verification costs). */
  scored: number;
  causes: Record<Cause, number>;
}

export function emptyStats(): ReplayStats {
  return {
    passes: 0,
    generated: 0,
    accepted: 0,
    scored: 0,
    causes: Object.fromEntries(CAUSES.map((c) => [c, 0])) as Record<Cause, number>,
  };
}

export function addStats(a: ReplayStats, b: ReplayStats): ReplayStats {
  const out = emptyStats();
  out.passes = a.passes + b.passes;
  out.generated = a.generated + b.generated;
  out.accepted = a.accepted + b.accepted;
  out.scored = a.scored + b.scored;
  for (const c of CAUSES) out.causes[c] = a.causes[c] + b.causes[c];
  return out;
}

const GRAM = 4;

/** Non-location 4-grams of the drafts, to tell "not proposed here" from "not in the drafts". */
function draftGrams(drafts: readonly (readonly number[])[], info: TokenInfo): Set<string> {
  const grams = new Set<string>();
  for (const d of drafts) {
    const s = d.filter((t) => !info.isLocation(t));
    for (let i = 0; i + GRAM <= s.length; i++) grams.add(s.slice(i, i + GRAM).join(','));
  }
  return grams;
}

/** Replays `target` (which must end with a stop token) against `drafts`. */
export function replaySequence(
  target: TokenizedDocTags,
  drafts: readonly (readonly number[])[],
  info: TokenInfo,
  opts: DecodeOptions = {},
): ReplayStats {
  const T = target.ids;
  if (T.length === 0 || !info.isStop(T[T.length - 1]))
    throw new Error('oracle replay: the target must end with a stop token');
  const nonEmpty = drafts.filter((d) => d.length > 0);
  const index =
    nonEmpty.length > 0 ? new DraftIndex(nonEmpty, info, opts.n ?? DEFAULT_MATCH.n, opts.calibrateBoxes) : undefined;
  const grams = draftGrams(nonEmpty, info);
  // The target is given (it may legitimately repeat, e.g. empty table rows): no loop guard.
  const dec = new SpecDecoder(info, index, { ...opts, maxNewTokens: T.length + 1, loopGuard: false });
  const stats = emptyStats();
  dec.startWith(T[0]);
  while (!dec.done) {
    const chains = dec.propose();
    const tree = dec.tree;
    let pos = dec.tokens.length;
    const tokens: number[] = [];
    let chain = 0;
    let depth = 0;
    let level: TreeNode[] = tree ? tree.roots : [];
    let leaf = false;
    while (pos < T.length) {
      const next = level.find((n) => n.token === T[pos]);
      if (!next) break;
      tokens.push(next.token);
      chain = next.chain;
      depth = next.depth;
      level = next.children;
      pos++;
      if (level.length === 0) {
        leaf = true;
        break;
      }
    }
    if (pos >= T.length) {
      // The drafts carried the page to its stop token: nothing was lost in this pass.
      dec.commit({ tokens, bonus: T[T.length - 1], chain, keep: depth + 1 }, chains);
      continue;
    }
    stats.causes[leaf ? 'K cap' : causeAt(target, pos, grams, info)]++;
    dec.commit({ tokens, bonus: T[pos], chain, keep: depth + 1 }, chains);
  }
  stats.passes = dec.stats.passes;
  stats.accepted = dec.stats.accepted;
  stats.generated = dec.stats.generated;
  stats.scored = dec.stats.scored;
  if (dec.tokens.length !== T.length || dec.tokens.some((t, i) => t !== T[i]))
    throw new Error('oracle replay: output differs from the target');
  return stats;
}

function causeAt(target: TokenizedDocTags, pos: number, grams: Set<string>, info: TokenInfo): Cause {
  const kind = target.kinds[pos];
  const ctx = target.context[pos];
  if (kind === 'location') return 'locations';
  if (ctx === 'otsl' || kind === 'cell') return 'tables';
  if (ctx === 'formula') return 'math';
  if (kind === 'tag') return 'tags';
  const ahead: number[] = [];
  for (let i = pos; i < target.ids.length && ahead.length < GRAM; i++)
    if (!info.isLocation(target.ids[i])) ahead.push(target.ids[i]);
  if (ahead.length === GRAM && grams.has(ahead.join(','))) return 'reading order';
  return kind === 'separator' ? 'separators' : 'text';
}
