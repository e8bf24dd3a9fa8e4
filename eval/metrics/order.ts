/**
 * Reading order and display formulas.
 *
 * Reading order: each ground-truth block long enough to be unambiguous is located in the
 * predicted text (by a short anchor from its start, else its middle, else its end); a pair of
 * consecutive located blocks counts when the second is found after the first. The score is the
 * share of consecutive pairs found in order, over all consecutive pairs (a block the
 * converter lost breaks its pairs too: losing text is not a correct order).
 */
import { normalizedEditDistance } from './levenshtein';
import type { Block } from './markdown';
import { normalizeText } from './normalize';

const MIN_LEN = 20;
const ANCHOR = 24;

function locate(hay: string, para: string): number {
  const anchors = [
    para.slice(0, ANCHOR),
    para.slice(Math.max(0, (para.length >> 1) - (ANCHOR >> 1)), (para.length >> 1) + (ANCHOR >> 1)),
    para.slice(-ANCHOR),
  ];
  for (const a of anchors) {
    const at = hay.indexOf(a);
    if (at >= 0) return at;
  }
  return -1;
}

export interface OrderScore {
  score: number;
  pairs: number;
  inOrder: number;
}

/** undefined when the ground truth has fewer than two blocks long enough to place. */
export function readingOrder(gtBlocks: Block[], predText: string): OrderScore | undefined {
  const hay = normalizeText(predText).toLowerCase();
  const paras = gtBlocks
    .filter((b) => b.kind !== 'picture' && b.kind !== 'formula')
    .map((b) => normalizeText(b.text).toLowerCase())
    .filter((t) => t.length >= MIN_LEN);
  if (paras.length < 2) return undefined;
  const pos = paras.map((p) => locate(hay, p));
  let inOrder = 0;
  for (let i = 0; i + 1 < pos.length; i++) if (pos[i] >= 0 && pos[i + 1] > pos[i]) inOrder++;
  const pairs = pos.length - 1;
  return { score: inOrder / pairs, pairs, inOrder };
}

/**
 * A formula's comparable skeleton: LaTeX commands and grouping dropped, only letters and
 * digits kept, so `\frac{a}{b}` and a Unicode rendering "a/b" meet on "ab".
 */
export function formulaSkeleton(src: string): string {
  return src
    .normalize('NFKC')
    .replace(
      /\\(mathrm|mathbf|mathit|text|operatorname|left|right|big|Big|bigg|Bigg|qquad|quad|cdot|times|frac|sqrt|top)\b/g,
      ' ',
    )
    .replace(/\\[A-Za-z]+/g, ' ')
    .replace(/[^\p{L}\p{N}]+/gu, '')
    .toLowerCase();
}

export interface FormulaScore {
  /** Share of ground-truth display formulas found as display formulas in the prediction. */
  recall: number;
  gt: number;
  found: number;
}

/**
 * Display formulas found. A ground-truth formula with source matches an unused predicted
 * display formula whose skeleton is ≥ 60% similar; a placeholder (Docling's
 * `<!-- formula-not-decoded -->`, no source) matches any unused predicted formula.
 */
export function formulasFound(gt: Block[], pred: Block[]): FormulaScore | undefined {
  const g = gt.filter((b) => b.kind === 'formula');
  if (g.length === 0) return undefined;
  const p = pred.filter((b) => b.kind === 'formula').map((b) => formulaSkeleton(b.source ?? b.text));
  const used = new Set<number>();
  let found = 0;
  for (const f of g) {
    const sk = formulaSkeleton(f.source ?? '');
    let best = -1;
    let bestSim = sk === '' ? 0 : 0.6;
    for (let j = 0; j < p.length; j++) {
      if (used.has(j)) continue;
      const sim = sk === '' ? 1 : 1 - normalizedEditDistance(sk, p[j]);
      if (sim >= bestSim && (best < 0 || sim > bestSim)) {
        best = j;
        bestSim = sim;
      }
    }
    if (best >= 0) {
      used.add(best);
      found++;
    }
  }
  return { recall: found / g.length, gt: g.length, found };
}
