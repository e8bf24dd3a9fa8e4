/**
 * The text layer of one page as TextSpans in displayed-page points (top-left origin, /Rotate
 * applied), with font size, bold/italic/monospace guessed from the embedded font's name.
 * Must run after `getOperatorList` (that is when pdf.js loads the fonts into commonObjs).
 */
import type { PDFPageProxy, TextContent } from 'pdfjs-dist/types/src/display/api';
import type { TextSpan } from '../model/content';
import { pdfjsWork } from './guard';

/** A span plus what layout needs beyond the shared type: its baseline angle. */
export interface PdfSpan extends TextSpan {
  /** Text direction in degrees on the displayed page (0 = left to right, upright). */
  angle: number;
  /** y of the baseline on the displayed page (upright text). */
  baseline: number;
}

interface FontInfo {
  name: string;
  bold: boolean;
  italic: boolean;
  monospace: boolean;
}

const MONO_RE = /mono|courier|consol|cmtt|menlo|inconsolata|typewriter|lucida ?console|sfmono|source ?code/i;
// TeX fonts encode weight in the name: cmbx/sfbx (bold extended), lmromandemi, …
// URW's Times and Palatino clones name their bold "Medi" (NimbusRomNo9L-Medi, -MediItal).
// cm-super's sans bold extended is sfsx; Linux Libertine/Biolinum (acmart) name their weights and
// slants by letters after "T": TB bold, TZ semibold, TI italic, TBI bold italic, TO oblique.
const BOLD_RE =
  /bold|black|heavy|semibold|demi|cmbx|sfbx|sfsx|cmb10|extrabold|[-,]bd\b|^[a-z]*bx\d|-medi(ital)?$|^Lin(?:Libertine|Biolinum)[A-Z]?[BZ]/i;
const ITALIC_RE = /italic|oblique|cmti|sfti|cmmi|[-,]it\b|^Lin(?:Libertine|Biolinum)[A-Z]?[BZ]?[IO]$/i;

function fontInfo(page: PDFPageProxy, fontName: string, family: string | undefined): FontInfo {
  let name = '';
  let mono = family === 'monospace';
  try {
    const f = page.commonObjs.get(fontName) as { name?: string; isMonospace?: boolean } | undefined;
    name = f?.name ?? '';
    if (f?.isMonospace) mono = true;
  } catch {
    // Not loaded (no operator list yet, or a Type3 font): fall back to the family only.
  }
  // Subset prefixes ("ABCDEF+") carry no meaning.
  const bare = name.replace(/^[A-Z]{6}\+/, '');
  return {
    name: bare || fontName,
    bold: BOLD_RE.test(bare),
    italic: ITALIC_RE.test(bare),
    monospace: mono || MONO_RE.test(bare),
  };
}

/** Multiplies two 2-D affine matrices [a,b,c,d,e,f] (m1 applied after m2). */
export function mul(m1: number[], m2: number[]): number[] {
  return [
    m1[0] * m2[0] + m1[2] * m2[1],
    m1[1] * m2[0] + m1[3] * m2[1],
    m1[0] * m2[2] + m1[2] * m2[3],
    m1[1] * m2[2] + m1[3] * m2[3],
    m1[0] * m2[4] + m1[2] * m2[5] + m1[4],
    m1[1] * m2[4] + m1[3] * m2[5] + m1[5],
  ];
}

/**
 * Text read while the document was opened (openPdf samples the first pages' font sizes), kept
 * for the page's analysis in the same worker: the first pages' text is then extracted once, not
 * twice (~20–30 ms a page here; issue 22's start-up). Taken once — a reparse asks pdf.js again —
 * and kept only for ordinary pages, so a page with a huge text layer is not held in memory.
 * pdf.js hands out one `PDFPageProxy` per page of a document, so the page is the key.
 */
const sampledText = new WeakMap<PDFPageProxy, TextContent>();
const KEEP_MAX_ITEMS = 20_000;

export function keepSampledText(page: PDFPageProxy, tc: TextContent): void {
  if (tc.items.length <= KEEP_MAX_ITEMS) sampledText.set(page, tc);
}

export async function readSpans(page: PDFPageProxy, viewportTransform: number[]): Promise<PdfSpan[]> {
  const kept = sampledText.get(page);
  sampledText.delete(page);
  const tc = kept ?? (await pdfjsWork(() => page.getTextContent()));
  const styles = tc.styles as Record<string, { fontFamily?: string; ascent?: number; descent?: number }>;
  const fonts = new Map<string, FontInfo>();
  const out: PdfSpan[] = [];
  let pendingSpace = false;
  for (const it of tc.items) {
    if (!('str' in it)) continue;
    if (it.str.length === 0 || /^\s+$/.test(it.str)) {
      // Empty items carry only an end-of-line mark; a whitespace item is a word space that the
      // glyph positions may not show (bidi runs touch), so the next span starts with a space.
      if (it.hasEOL && out.length > 0) out[out.length - 1].eol = true;
      if (it.str.length > 0 && !it.hasEOL) pendingSpace = true;
      continue;
    }
    const lead = pendingSpace ? ' ' : '';
    pendingSpace = false;
    let fi = fonts.get(it.fontName);
    if (!fi) fonts.set(it.fontName, (fi = fontInfo(page, it.fontName, styles[it.fontName]?.fontFamily)));
    const m = mul(viewportTransform, it.transform as number[]);
    const size = Math.hypot(m[2], m[3]);
    if (!(size > 0.5) || !Number.isFinite(size) || !Number.isFinite(m[4]) || !Number.isFinite(m[5])) continue;
    const ux = m[0] / Math.hypot(m[0], m[1]);
    const uy = m[1] / Math.hypot(m[0], m[1]);
    const angleRaw = (Math.atan2(uy, ux) * 180) / Math.PI;
    const angle = Math.round(angleRaw);
    const st = styles[it.fontName];
    const asc = clamp(st?.ascent ?? 0.8, 0.6, 1.0);
    const desc = clamp(Math.abs(st?.descent ?? 0.2), 0.1, 0.3);
    // pdf.js reports width in the item's text space scaled to user space; the viewport scale is 1.
    const w = (Number.isFinite(it.width) ? it.width : 0) * Math.hypot(viewportTransform[0], viewportTransform[1]);
    // Corners of the glyph run: along the baseline by w, up by asc·size, down by desc·size.
    // "Up" on the displayed page is the baseline direction turned -90° (y grows downwards).
    const vx = uy;
    const vy = -ux;
    const pts: [number, number][] = [];
    for (const a of [0, w])
      for (const h of [asc * size, -desc * size]) pts.push([m[4] + ux * a + vx * h, m[5] + uy * a + vy * h]);
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    out.push({
      text: lead + it.str,
      bbox: { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) },
      fontSize: Math.round(size * 100) / 100,
      fontName: fi.name,
      monospace: fi.monospace,
      bold: fi.bold,
      italic: fi.italic,
      dir: it.dir === 'rtl' ? 'rtl' : it.dir === 'ttb' ? 'ttb' : 'ltr',
      eol: it.hasEOL,
      angle,
      baseline: m[5],
    });
  }
  return out;
}

/** Clamps, and maps NaN (fonts without metrics report NaN ascents) to the middle of the range. */
function clamp(v: number, lo: number, hi: number): number {
  if (!Number.isFinite(v)) return (lo + hi) / 2;
  return Math.min(hi, Math.max(lo, v));
}

/**
 * Whether a text layer is worth reading: enough characters, and mostly real ones (not the
 * private-use or replacement characters that unmapped fonts produce).
 */
export function textLayerUsable(spans: TextSpan[]): boolean {
  let total = 0;
  let bad = 0;
  for (const s of spans) {
    for (const ch of s.text) {
      if (/\s/.test(ch)) continue;
      total++;
      const c = ch.codePointAt(0)!;
      if (c === 0xfffd || c < 0x20 || (c >= 0xe000 && c <= 0xf8ff)) bad++;
    }
  }
  if (total < 5) return false;
  return bad / total < 0.3;
}
