/**
 * Stage 1, units: what leaves the text flow as a block of its own (pictures that are figures,
 * tables, display formulas) and the text spans left for lines, upright or turned.
 */
import { buildLines } from '../lines/index';
import { isJustifiedProse } from '../order/streamEvidence';
import { isJustifiedOcrProse } from '../lines/justifiedOcr';
import { findDisplayFormulas, isMathGrid } from '../math/index';
import { isCaptionStart } from '../blocks/captions';
import type { BBox } from '../../../common/protocol';
import type { TextSpan } from '../../model/content';
import { area, centre, inside, type PageState } from './state';

/** A graphic covering this share of the page or more is the page's background, not a figure. */
const BACKGROUND_PAGE_SHARE = 0.85;
/**
 * A picture under a good deal of text is a background (a shaded heading box, a banner): the text
 * is what matters. Sparse text on a figure (axis labels) belongs to the figure.
 */
const FIGURE_MAX_TEXT_SHARE = 0.1;
/** Spans turned by at most this many degrees are upright. */
const UPRIGHT_MAX_ANGLE = 3;

export function findUnits(state: PageState): PageState {
  const { content, angles } = state.input;
  const pageArea = state.width * state.height;
  const textArea = (b: BBox) => {
    let a = 0;
    for (const s of content.spans) if (inside(centre(s.bbox), b)) a += area(s.bbox);
    return a;
  };
  const pictures = content.graphics.filter(
    (g) =>
      area(g.bbox) < pageArea * BACKGROUND_PAGE_SHARE &&
      area(g.bbox) > 0 &&
      textArea(g.bbox) < area(g.bbox) * FIGURE_MAX_TEXT_SHARE,
  );
  // Justified prose that alignment mistook for a table goes back to the text flow.
  // Only tables found by alignment alone: rules (full grids, booktabs) are stronger evidence.
  const tables = state.tables.filter(
    (t) =>
      !(
        t.alignedOnly &&
        (isJustifiedProse(t.spanIndices, content.spans) ||
          isJustifiedOcrProse(t.spanIndices, content.spans) ||
          isMathGrid(t.spanIndices, content.spans))
      ),
  );
  const consumed = new Set<number>();
  for (const t of tables) for (const i of t.spanIndices) consumed.add(i);
  // Display formulas leave the text flow as units of their own (server/layout/math).
  let formulas: ReturnType<typeof findDisplayFormulas> = [];
  try {
    formulas = findDisplayFormulas(content.spans, content.rules, consumed, state.width, angles);
  } catch {
    formulas = []; // math reading is an enhancement: on any surprise the text flows as lines
  }
  for (const f of formulas) for (const i of f.spanIndices) consumed.add(i);

  const upright: TextSpan[] = [];
  const rotated: TextSpan[] = [];
  const inFigure: TextSpan[] = [];
  content.spans.forEach((s, i) => {
    if (consumed.has(i) || !s.text.trim()) return;
    const angle = angles?.[i] ?? 0;
    // Text drawn inside a figure (axis labels, diagram words) belongs to the figure…
    if (angle === 0 && pictures.some((p) => inside(centre(s.bbox), p.bbox))) inFigure.push(s);
    else if (Math.abs(angle) <= UPRIGHT_MAX_ANGLE) upright.push(s);
    else rotated.push(s);
  });
  // …except a caption that the figure's box happened to take in.
  for (const l of buildLines(inFigure)) if (isCaptionStart(l.text)) upright.push(...l.spans);
  return { ...state, pictures, tables, formulas, upright, rotated };
}
