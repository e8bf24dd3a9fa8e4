/**
 * OCR output → TextSpans for layout. Layout runs in the upright frame (rotation undone, so lines
 * are horizontal); the resulting boxes are mapped back to the displayed page for `bbox`.
 */
import type { BBox } from '../protocol';
import type { TextSpan } from './types';
import type { OcrBox, OcrResultLike } from './ocrBridge';

export interface OcrSpans {
  spans: TextSpan[];
  /** Size of the upright frame in points. */
  width: number;
  height: number;
  /** Upright-frame box (points) → displayed-page box (points). */
  toDisplayed(b: BBox): BBox;
}

type Map2 = (u: number, v: number) => [number, number];

/**
 * The upright→original pixel map, chosen among the four quarter turns by how well it maps the
 * words' upright centres onto their original centres (so the rotation convention cannot bite).
 */
function fitMap(res: OcrResultLike, Wo: number, Ho: number): { map: Map2; Wu: number; Hu: number } {
  const cands: { map: Map2; Wu: number; Hu: number }[] = [
    { map: (u, v) => [u, v], Wu: Wo, Hu: Ho },
    { map: (u, v) => [Wo - v, u], Wu: Ho, Hu: Wo },
    { map: (u, v) => [v, Ho - u], Wu: Ho, Hu: Wo },
    { map: (u, v) => [Wo - u, Ho - v], Wu: Wo, Hu: Ho },
  ];
  const pairs: [OcrBox, OcrBox][] = [];
  for (const l of res.lines) {
    pairs.push([l.upright, l.bbox]);
    if (pairs.length > 40) break;
  }
  if (pairs.length === 0) return res.rotation === 90 || res.rotation === 270 ? cands[1] : cands[0];
  let best = cands[0];
  let bestErr = Infinity;
  for (const c of cands) {
    let err = 0;
    for (const [u, o] of pairs) {
      const [x, y] = c.map((u.x0 + u.x1) / 2, (u.y0 + u.y1) / 2);
      err += Math.hypot(x - (o.x0 + o.x1) / 2, y - (o.y0 + o.y1) / 2);
    }
    if (err < bestErr) [best, bestErr] = [c, err];
  }
  return best;
}

export function ocrToSpans(res: OcrResultLike, imgW: number, imgH: number, scale: number): OcrSpans {
  const { map, Wu, Hu } = fitMap(res, imgW, imgH);
  const spans: TextSpan[] = [];
  const toPt = (b: OcrBox): BBox => ({ x0: b.x0 / scale, y0: b.y0 / scale, x1: b.x1 / scale, y1: b.y1 / scale });
  for (const l of res.lines) {
    const lineBox = toPt(l.upright);
    // The box of an OCR line spans ascenders to descenders: about 1.2 × the font size.
    const fontSize = Math.max(4, (lineBox.y1 - lineBox.y0) / 1.2);
    const words = l.words.length > 0 ? l.words : [{ text: l.text, bbox: l.bbox, upright: l.upright }];
    words.forEach((w, i) => {
      if (!w.text.trim()) return;
      const b = toPt(w.upright);
      // Words share the line's vertical extent so they group into one line.
      spans.push({
        text: w.text,
        bbox: { x0: b.x0, y0: lineBox.y0, x1: b.x1, y1: lineBox.y1 },
        fontSize,
        fontName: 'ocr',
        monospace: false,
        eol: i === words.length - 1,
      });
    });
  }
  return {
    spans,
    width: Wu / scale,
    height: Hu / scale,
    toDisplayed(b: BBox): BBox {
      const pts = [map(b.x0 * scale, b.y0 * scale), map(b.x1 * scale, b.y0 * scale), map(b.x0 * scale, b.y1 * scale), map(b.x1 * scale, b.y1 * scale)];
      const xs = pts.map((p) => p[0] / scale);
      const ys = pts.map((p) => p[1] / scale);
      return { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
    },
  };
}
