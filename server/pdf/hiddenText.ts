/**
 * Text a reader cannot see (issue 39, N9): pdf.js's text content holds every string a page's
 * content stream shows, whether or not the page shows it. An attacker's "IGNORE PREVIOUS
 * INSTRUCTIONS" in white on a white page, under a white rectangle, outside the clip or squeezed by
 * `1 Tz` reached the Markdown, and through `folio mcp` and the LM tool the agents reading it. The
 * operator list says how each show-text operator was drawn, so it is walked here once, keeping the
 * graphics state pdf.js's canvas keeps (CTM, clip box, fill and stroke colour, alpha, blend mode,
 * soft mask, text matrix and text state), and each run (one show-text operator) gets a box on the
 * displayed page and, when a reader cannot see it, the reason:
 *
 * - `invisible`: rendering mode 3 (neither filled nor stroked) or 7 (clip only), unless it lies
 *   over an image (a scan's OCR layer: the image shows the words; issue 31).
 * - `transparent`: filled (or stroked) with an alpha of at most 0.05.
 * - `squeezed`: horizontally scaled (Tz and the text matrix together) under 20 % of its height
 *   scale: `1 Tz` draws a line of text as a hairline. Condensed type and small caps use 70–95 %.
 * - `clipped`: at most 10 % of its box lies inside the clip (intersected rectangles, and the boxes
 *   of other clipping paths, so a curved clip never drops what it may show).
 * - `background`: its colour is within 10/255 in every channel of the colour beneath it: the
 *   topmost opaque filled rectangle drawn before it that covers it, or the white page. Beneath an
 *   image, a shading, a pattern, a curved shape or a translucent fill the colour is unknown and
 *   the rule does not apply. Light grey on white (#d0d0d0, 47 apart) stays.
 * - `covered`: an opaque filled rectangle (alpha 1, normal blend, no soft mask) or an image drawn
 *   later covers 90 % of its box. A page-sized image (60 % of the page) drawn over text is how
 *   OCR software lays a scan over its text, so it hides nothing; text drawn before a picture is
 *   not covered by it when the picture is drawn first (the usual order).
 *
 * Annotation appearances (between beginAnnotation and endAnnotation) are not walked: their
 * placement is their own and they are drawn over the page by viewers that choose to.
 */
import type { BBox } from '../../common/protocol';
import type { OpsCodes } from './graphics';
import { mul } from './text';
import { matchKey } from './invisibleText';
import type { HiddenReason, TextRun } from './textRun';

export type { HiddenReason, TextRun };

/** The font facts the walk needs, from pdf.js's loaded fonts (commonObjs). */
export interface FontFacts {
  fontMatrix(loadedName: string): number[] | undefined;
  vertical(loadedName: string): boolean;
}

interface Paint {
  /** Operator index: order in the stream. */
  at: number;
  bbox: BBox;
  /** `rect`: an opaque filled rectangle of `color`; `image`: an image; `unknown`: a colour not known. */
  kind: 'rect' | 'image' | 'unknown';
  color?: number[];
}

interface State {
  ctm: number[];
  clip: BBox;
  fill: number[] | null;
  stroke: number[] | null;
  fillAlpha: number;
  strokeAlpha: number;
  /** Normal blend mode and no soft mask: what is drawn hides what is beneath. */
  plain: boolean;
  font: string;
  fontSize: number;
  charSpacing: number;
  wordSpacing: number;
  hScale: number;
  leading: number;
  rise: number;
  mode: number;
  textMatrix: number[];
  x: number;
  y: number;
  lineX: number;
  lineY: number;
}

const NEAR = 10;
const SQUEEZE = 0.2;
const THIN = 3;

/** `#rrggbb` → [r, g, b]; null for anything else (a pattern, a transparent fill). */
function hexColor(v: unknown): number[] | null {
  if (typeof v !== 'string' || !/^#[0-9a-f]{6}$/i.test(v)) return null;
  return [1, 3, 5].map((i) => parseInt(v.slice(i, i + 2), 16));
}

function area(b: BBox): number {
  return Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0);
}

function intersect(a: BBox, b: BBox): BBox {
  return { x0: Math.max(a.x0, b.x0), y0: Math.max(a.y0, b.y0), x1: Math.min(a.x1, b.x1), y1: Math.min(a.y1, b.y1) };
}

/** Share of `inner` inside `outer` (1 for a point-sized inner box inside it). */
function inside(inner: BBox, outer: BBox): number {
  const a = area(inner);
  if (a <= 1e-9) {
    const cx = (inner.x0 + inner.x1) / 2;
    const cy = (inner.y0 + inner.y1) / 2;
    return cx >= outer.x0 && cx <= outer.x1 && cy >= outer.y0 && cy <= outer.y1 ? 1 : 0;
  }
  return area(intersect(inner, outer)) / a;
}

function near(a: number[], b: number[]): boolean {
  return a.every((v, i) => Math.abs(v - b[i]) <= NEAR);
}

/**
 * Whether a path fills one axis-aligned rectangle: every point a corner of its box and every line
 * axis-aligned. `re` arrives so, and so do PGF's rectangles (`m m l l l h m`: repeated and
 * trailing moves add nothing).
 */
function isRect(data: unknown): boolean {
  const arr = Array.isArray(data) ? data[0] : data;
  if (!arr || typeof (arr as ArrayLike<number>).length !== 'number') return false;
  const a = arr as ArrayLike<number>;
  const pts: number[][] = [];
  const lines: [number[], number[]][] = [];
  let prev: number[] | undefined;
  let i = 0;
  while (i < a.length) {
    const c = a[i];
    if (c === 0 || c === 1) {
      const p = [a[i + 1], a[i + 2]];
      if (c === 1 && prev) lines.push([prev, p]);
      pts.push(p);
      prev = p;
      i += 3;
    } else if (c === 4) i += 1;
    else return false; // a curve
    if (pts.length > 16) return false;
  }
  if (pts.length < 4) return false;
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const eq = (u: number, v: number) => Math.abs(u - v) <= 0.01;
  if (!pts.every((p) => (eq(p[0], x0) || eq(p[0], x1)) && (eq(p[1], y0) || eq(p[1], y1)))) return false;
  return lines.every(([p, q]) => eq(p[0], q[0]) || eq(p[1], q[1]));
}

type DrawnRun = TextRun & { at: number; color: number[] | null; mode: number; alpha: number; squeeze: number };

const IDENTITY = [1, 0, 0, 1, 0, 0];

function initialState(): State {
  return {
    ctm: IDENTITY,
    clip: { x0: -Infinity, y0: -Infinity, x1: Infinity, y1: Infinity },
    fill: [0, 0, 0],
    stroke: [0, 0, 0],
    fillAlpha: 1,
    strokeAlpha: 1,
    plain: true,
    font: '',
    fontSize: 0,
    charSpacing: 0,
    wordSpacing: 0,
    hScale: 1,
    leading: 0,
    rise: 0,
    mode: 0,
    textMatrix: IDENTITY,
    x: 0,
    y: 0,
    lineX: 0,
    lineY: 0,
  };
}

/**
 * Walks the operator list once and returns every show-text run with its box and, when a reader
 * cannot see it, why. `pageW`/`pageH` are the displayed page's size in points.
 */
export function readTextRunsDrawn(
  fnArray: number[],
  argsArray: unknown[],
  OPS: OpsCodes,
  viewportTransform: number[],
  pageW: number,
  pageH: number,
  fonts: FontFacts,
): TextRun[] {
  const name: Record<number, string> = {};
  for (const [k, v] of Object.entries(OPS)) name[v] = k;
  const walk = new RunWalker(viewportTransform, { x0: 0, y0: 0, x1: pageW, y1: pageH }, fonts, name);
  let annotation = 0;
  for (let i = 0; i < fnArray.length; i++) {
    const op = name[fnArray[i]];
    if (op === 'beginAnnotation') annotation++;
    else if (op === 'endAnnotation') annotation = Math.max(0, annotation - 1);
    if (annotation === 0) walk.op(op, (argsArray[i] as unknown[] | null) ?? [], i);
  }
  decide(walk.runs, walk.paints, pageW, pageH);
  return walk.runs.map(({ key, text, bbox, hidden, white }) => ({
    key,
    text,
    bbox,
    ...(hidden ? { hidden } : {}),
    ...(white ? { white } : {}),
  }));
}

/** The graphics and text state through the operator list, collecting paints and text runs. */
class RunWalker {
  readonly runs: DrawnRun[] = [];
  readonly paints: Paint[] = [];
  private s = initialState();
  private readonly stack: State[] = [];
  private pendingClip = false;

  constructor(
    private readonly viewport: number[],
    private readonly page: BBox,
    private readonly fonts: FontFacts,
    private readonly name: Record<number, string>,
  ) {}

  op(op: string, args: unknown[], i: number): void {
    if (this.graphicsOp(op, args) || this.colourOp(op, args) || this.textStateOp(op, args)) return;
    if (op === 'showText' || op === 'showSpacedText') this.showText(args, i);
    else this.paintOp(op, args, i);
  }

  private boxOf(m: number[], x0: number, y0: number, x1: number, y1: number): BBox {
    const t = mul(this.viewport, m);
    const pts = [
      [x0, y0],
      [x1, y0],
      [x0, y1],
      [x1, y1],
    ].map(([x, y]) => [t[0] * x + t[2] * y + t[4], t[1] * x + t[3] * y + t[5]]);
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    return { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
  }

  /** save/restore, CTM, form XObjects and clipping; true when `op` was one of them. */
  private graphicsOp(op: string, args: unknown[]): boolean {
    const s = this.s;
    switch (op) {
      case 'save':
        this.stack.push({ ...s });
        return true;
      case 'restore':
      case 'paintFormXObjectEnd':
        this.s = this.stack.pop() ?? s;
        return true;
      case 'transform':
        s.ctm = mul(s.ctm, args as number[]);
        return true;
      case 'paintFormXObjectBegin': {
        this.stack.push({ ...s });
        const m = args[0] as ArrayLike<number> | null;
        if (m && m.length === 6) s.ctm = mul(s.ctm, Array.from(m));
        const bb = args[1] as ArrayLike<number> | null;
        if (bb && bb.length === 4) s.clip = intersect(s.clip, this.boxOf(s.ctm, bb[0], bb[1], bb[2], bb[3]));
        return true;
      }
      case 'clip':
      case 'eoClip':
        this.pendingClip = true;
        return true;
      default:
        return false;
    }
  }

  /** Colours, alpha, blend mode, soft mask and the font an ExtGState sets. */
  private colourOp(op: string, args: unknown[]): boolean {
    const s = this.s;
    switch (op) {
      case 'setFillRGBColor':
        s.fill = hexColor(args[0]);
        return true;
      case 'setStrokeRGBColor':
        s.stroke = hexColor(args[0]);
        return true;
      case 'setFillColorN':
      case 'setFillTransparent':
        s.fill = null; // a pattern or no colour: the colour is not known
        return true;
      case 'setStrokeColorN':
      case 'setStrokeTransparent':
        s.stroke = null;
        return true;
      case 'setGState':
        for (const pair of (args[0] as unknown[][] | undefined) ?? []) {
          const [k, v] = pair as [string, unknown];
          if (k === 'ca' && typeof v === 'number') s.fillAlpha = v;
          else if (k === 'CA' && typeof v === 'number') s.strokeAlpha = v;
          else if (k === 'BM') s.plain = v === 'source-over' || v === 'Normal';
          else if (k === 'SMask') s.plain = s.plain && !v;
          else if (k === 'Font' && Array.isArray(v)) {
            s.font = String(v[0]);
            s.fontSize = Number(v[1]) || 0;
          }
        }
        return true;
      default:
        return false;
    }
  }

  /** Text object, text matrix and text state operators (pdf.js's canvas semantics). */
  private textStateOp(op: string, args: unknown[]): boolean {
    const s = this.s;
    const n = (k: number) => Number(args[k]) || 0;
    switch (op) {
      case 'beginText':
        s.textMatrix = IDENTITY;
        s.x = s.y = s.lineX = s.lineY = 0;
        return true;
      case 'setFont':
        s.font = String(args[0]);
        s.fontSize = n(1);
        return true;
      case 'setCharSpacing':
        s.charSpacing = n(0);
        return true;
      case 'setWordSpacing':
        s.wordSpacing = n(0);
        return true;
      case 'setHScale':
        s.hScale = n(0) / 100;
        return true;
      case 'setLeading':
        s.leading = -n(0);
        return true;
      case 'setTextRise':
        s.rise = n(0);
        return true;
      case 'setTextRenderingMode':
        s.mode = n(0);
        return true;
      case 'setTextMatrix': {
        const m = args[0] as ArrayLike<number>;
        if (m && m.length === 6) s.textMatrix = Array.from(m);
        s.x = s.y = s.lineX = s.lineY = 0;
        return true;
      }
      case 'moveText':
      case 'setLeadingMoveText':
        if (op === 'setLeadingMoveText') s.leading = n(1);
        s.x = s.lineX += n(0);
        s.y = s.lineY += n(1);
        return true;
      case 'nextLine':
        s.x = s.lineX;
        s.y = s.lineY += s.leading;
        return true;
      default:
        return false;
    }
  }

  private paint(at: number, bbox: BBox, rect: boolean): void {
    const s = this.s;
    const opaque = rect && s.fill !== null && s.fillAlpha >= 1 && s.plain;
    this.paints.push(opaque ? { at, bbox, kind: 'rect', color: s.fill! } : { at, bbox, kind: 'unknown' });
  }

  /** Paths, images and shadings: what may lie beneath or over text. */
  private paintOp(op: string, args: unknown[], i: number): void {
    const s = this.s;
    const unit = () => intersect(this.boxOf(s.ctm, 0, 0, 1, 1), s.clip);
    const big = (b: BBox) => b.x1 - b.x0 > THIN && b.y1 - b.y0 > THIN;
    switch (op) {
      case 'constructPath': {
        const paintOp = this.name[args[0] as number];
        const mm = args[2] as ArrayLike<number> | null;
        const has = !!mm && mm.length >= 4 && Number.isFinite(mm[0]);
        const box = has ? this.boxOf(s.ctm, mm[0], mm[1], mm[2], mm[3]) : undefined;
        if (this.pendingClip) {
          this.pendingClip = false;
          if (box) s.clip = intersect(s.clip, box);
        }
        if (!box || paintOp === 'endPath') return;
        const b = intersect(box, s.clip);
        if (!big(b)) return; // rules and hairlines hide nothing
        if (paintOp === 'stroke' || paintOp === 'closeStroke') this.paints.push({ at: i, bbox: b, kind: 'unknown' });
        else this.paint(i, b, isRect(args[1]));
        return;
      }
      case 'paintSolidColorImageMask': {
        const b = unit();
        if (big(b)) this.paint(i, b, true);
        return;
      }
      case 'paintImageXObject':
      case 'paintInlineImageXObject':
      case 'paintImageXObjectRepeat': {
        const b = unit();
        if (area(b) > 0) this.paints.push({ at: i, bbox: b, kind: s.fillAlpha >= 1 && s.plain ? 'image' : 'unknown' });
        return;
      }
      case 'beginGroup': {
        // A transparency group or soft mask: what it paints is composited in ways not followed
        // here (issue18032.pdf's orange card comes out of one), so beneath it the colour is unknown.
        const g = (args[0] ?? {}) as { bbox?: ArrayLike<number>; matrix?: ArrayLike<number> };
        const m = g.matrix && g.matrix.length === 6 ? mul(s.ctm, Array.from(g.matrix)) : s.ctm;
        const bb = g.bbox;
        const box = bb && bb.length === 4 ? this.boxOf(m, bb[0], bb[1], bb[2], bb[3]) : this.page;
        const b = intersect(intersect(box, s.clip), this.page);
        if (area(b) > 0) this.paints.push({ at: i, bbox: b, kind: 'unknown' });
        return;
      }
      case 'paintImageMaskXObject':
      case 'shadingFill': {
        const b = op === 'shadingFill' ? intersect(s.clip, this.page) : unit();
        if (area(b) > 0) this.paints.push({ at: i, bbox: b, kind: 'unknown' });
        return;
      }
      default:
        return;
    }
  }

  /** One show-text operator: its advance (as pdf.js's canvas computes it), box and drawing. */
  private showText(args: unknown[], i: number): void {
    const s = this.s;
    const glyphs = Array.isArray(args[0]) ? (args[0] as unknown[]) : [];
    const size = Math.abs(s.fontSize);
    const dir = s.fontSize < 0 ? -1 : 1;
    const fm = this.fonts.fontMatrix(s.font) ?? [0.001, 0, 0, 0.001, 0, 0];
    const vertical = this.fonts.vertical(s.font);
    let adv = 0;
    let text = '';
    for (const g of glyphs) {
      if (typeof g === 'number') {
        adv -= (g * size) / 1000;
        continue;
      }
      if (!g || typeof g !== 'object') continue;
      const gl = g as { unicode?: unknown; width?: unknown; isSpace?: unknown };
      text += typeof gl.unicode === 'string' ? gl.unicode : '';
      adv += (Number(gl.width) || 0) * size * fm[0] + ((gl.isSpace ? s.wordSpacing : 0) + s.charSpacing) * dir;
    }
    const m = mul(s.ctm, s.textMatrix);
    const x1 = s.x + adv * s.hScale * dir;
    const yb = s.y + s.rise;
    const bbox = this.boxOf(m, Math.min(s.x, x1), yb - 0.2 * size, Math.max(s.x, x1), yb + 0.8 * size);
    s.x = x1;
    const key = matchKey(text);
    if (!key) return;
    // Width scale of the glyphs against their height scale, on the page.
    const full = mul(this.viewport, m);
    const xs = Math.hypot(full[0], full[1]) * Math.abs(s.hScale);
    const ys = Math.hypot(full[2], full[3]);
    const fillMode = s.mode & 3;
    const color =
      fillMode === 0
        ? s.fill
        : fillMode === 1
          ? s.stroke
          : s.fill && s.stroke && near(s.fill, s.stroke)
            ? s.fill
            : null;
    const alpha = fillMode === 0 ? s.fillAlpha : fillMode === 1 ? s.strokeAlpha : Math.max(s.fillAlpha, s.strokeAlpha);
    const run: DrawnRun = {
      key,
      text,
      bbox,
      at: i,
      color,
      mode: s.mode,
      alpha,
      squeeze: ys > 0 && !vertical ? xs / ys : 1,
    };
    if (!vertical && size > 0 && Number.isFinite(s.clip.x0) && inside(bbox, s.clip) <= 0.1) run.hidden = 'clipped';
    this.runs.push(run);
  }
}

/** The reasons that need the page's paints: rendering mode, alpha, squeeze, background, covers. */
function decide(runs: DrawnRun[], paints: Paint[], pageW: number, pageH: number): void {
  const grid = new PaintGrid(paints, pageW, pageH);
  const pageArea = pageW * pageH;
  const images = paints.filter((p) => p.kind === 'image');
  for (const r of runs) {
    if (r.hidden) continue;
    const cx = (r.bbox.x0 + r.bbox.x1) / 2;
    const cy = (r.bbox.y0 + r.bbox.y1) / 2;
    if ((r.mode & 3) === 3) {
      // A scan's OCR layer lies over the page image, which shows the words.
      if (!images.some((b) => cx >= b.bbox.x0 && cx <= b.bbox.x1 && cy >= b.bbox.y0 && cy <= b.bbox.y1))
        r.hidden = 'invisible';
      continue;
    }
    if (r.alpha <= 0.05) {
      r.hidden = 'transparent';
      continue;
    }
    if (r.squeeze < SQUEEZE) {
      r.hidden = 'squeezed';
      continue;
    }
    const near_ = grid.at(cx, cy);
    // Drawn later and covering it: an opaque rectangle or an image smaller than a scan.
    const cover = near_.find(
      (p) =>
        p.at > r.at &&
        (p.kind === 'rect' || (p.kind === 'image' && area(p.bbox) < pageArea * 0.6)) &&
        inside(r.bbox, p.bbox) >= 0.9,
    );
    if (cover) {
      r.hidden = 'covered';
      continue;
    }
    if (!r.color) continue;
    // Beneath it: the topmost paint drawn before it that reaches it.
    let under: Paint | undefined;
    for (const p of near_) if (p.at < r.at && inside(r.bbox, p.bbox) > 0 && (!under || p.at > under.at)) under = p;
    let bg: number[] | undefined;
    if (!under) bg = [255, 255, 255];
    else if (under.kind === 'rect' && inside(r.bbox, under.bbox) >= 0.9) bg = under.color;
    if (bg && near(r.color, bg)) {
      r.hidden = 'background';
      if (bg.every((v) => v >= 255 - NEAR)) r.white = true;
    }
  }
}

/** Paints by 48-pt cell, so each run looks only at the paints near its centre. */
class PaintGrid {
  private readonly cells = new Map<number, Paint[]>();
  private readonly cols: number;
  private static readonly CELL = 48;
  constructor(paints: Paint[], w: number, h: number) {
    const C = PaintGrid.CELL;
    this.cols = Math.max(1, Math.ceil(w / C) + 1);
    const rows = Math.max(1, Math.ceil(h / C) + 1);
    for (const p of paints) {
      const c0 = Math.max(0, Math.floor(p.bbox.x0 / C));
      const c1 = Math.min(this.cols - 1, Math.floor(p.bbox.x1 / C));
      const r0 = Math.max(0, Math.floor(p.bbox.y0 / C));
      const r1 = Math.min(rows - 1, Math.floor(p.bbox.y1 / C));
      for (let r = r0; r <= r1; r++)
        for (let c = c0; c <= c1; c++) {
          const k = r * this.cols + c;
          const list = this.cells.get(k);
          if (list) list.push(p);
          else this.cells.set(k, [p]);
        }
    }
  }
  at(x: number, y: number): Paint[] {
    const C = PaintGrid.CELL;
    return this.cells.get(Math.floor(y / C) * this.cols + Math.floor(x / C)) ?? [];
  }
}
