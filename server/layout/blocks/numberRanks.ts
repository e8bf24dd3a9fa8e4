/**
 * Section numbers against sizes (issue 31, heading levels). A numbered heading's level is its
 * number's depth ("2.2" level 2) — unless the page shows that its numbering starts deeper than
 * its headings do: a Redbook's page cut alone sets "2.2 Separation of duties" at 16 pt over
 * "2.1.6 Change Function Usage CL command" at 13 pt, the chapter ("2") elsewhere; a book chapter
 * sets "3.3" over "3.3.1". Where the page holds two depths or more and each depth is set strictly
 * larger than the next, the sizes rank the heads: a head's level is the lesser of its depth and
 * its size's rank (on the page, and among the document's heading sizes). A page with one depth
 * only ("4.1", "4.2") says nothing about the offset and keeps the depths.
 */
import type { Block } from './index';
import { headingNumberDepth } from './markers';
import { outlineKind } from './outline';

/** What the pass needs of a classified block. */
export interface RankedItem {
  cls: string;
  text: string;
  level?: number;
  absorbed?: boolean;
  block: Block;
}

/** Sizes within this many points are one size. */
const SAME_SIZE = 0.3;

export function rankNumberedBySize(
  items: RankedItem[],
  sizeOf: (b: Block) => number,
  docLevel: (size: number) => number,
): void {
  const heads = items.filter(
    (c) =>
      c.cls === 'section_header' &&
      !c.absorbed &&
      (outlineKind(c.text) === 'decimal' || outlineKind(c.text) === 'arabic') &&
      c.level === headingNumberDepth(c.text),
  );
  const byDepth = new Map<number, number[]>();
  for (const h of heads) {
    const d = headingNumberDepth(h.text)!;
    byDepth.set(d, [...(byDepth.get(d) ?? []), sizeOf(h.block)]);
  }
  if (byDepth.size < 2) return;
  const depths = [...byDepth.keys()].sort((a, b) => a - b);
  for (let i = 1; i < depths.length; i++) {
    if (Math.min(...byDepth.get(depths[i - 1])!) <= Math.max(...byDepth.get(depths[i])!) + SAME_SIZE) return;
  }
  const sizes: number[] = [];
  for (const s of [...byDepth.values()].flat().sort((a, b) => b - a))
    if (!sizes.some((t) => Math.abs(t - s) < SAME_SIZE)) sizes.push(s);
  for (const h of heads) {
    const size = sizeOf(h.block);
    const rank = sizes.findIndex((t) => Math.abs(t - size) < SAME_SIZE) + 1;
    h.level = Math.min(h.level!, Math.max(rank, docLevel(size)));
  }
}
