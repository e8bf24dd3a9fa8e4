/**
 * Stage 6, captions: each caption nested in its picture or table (../captions.ts), and the items
 * that hold only furniture-band text listed as furniture candidates (server/pipeline/furniture.ts
 * decides across neighbouring pages).
 */
import { attachCaptions } from '../captions';
import type { PageState } from './state';

/** Tolerance (points) for a band line's box lying inside an item's box. */
const BOX_TOLERANCE = 0.5;

export function placeCaptions(state: PageState): PageState {
  const items = attachCaptions(state.items);
  const furnitureCandidates: number[] = [];
  const bandBoxes = [...state.header, ...state.footer, ...state.margin].map((u) => u.bbox);
  items.forEach((it, i) => {
    if (!it.bbox || it.cls === 'picture' || it.cls === 'table') return;
    const b = it.bbox;
    const t = BOX_TOLERANCE;
    if (bandBoxes.some((u) => u.x0 >= b.x0 - t && u.x1 <= b.x1 + t && u.y0 >= b.y0 - t && u.y1 <= b.y1 + t)) furnitureCandidates.push(i);
  });
  return { ...state, items, furnitureCandidates };
}
