/**
 * A PowerPoint deck (PPTX, PresentationML) → Folio's items, a slide a page: the title, text frames
 * in reading order (top to bottom, shapes whose tops lie within 0.05 inch of each other read left
 * to right, as Docling orders a slide; a placeholder without its own position takes its layout's),
 * bullets and numbering as lists (inherited from the shape, its layout and its master as
 * PowerPoint does), tables with merged cells, pictures, charts with their data (chart.ts), and the
 * speaker notes as the page's furniture (a layer the Markdown leaves out unless furniture is kept,
 * as Docling keeps them out of its Markdown).
 */
import type { DocItem, OtslCell } from '../model/items';
import type { OfficePackage } from './package';
import { readChart } from './chart';
import { commentItem, commentTime } from './comments';
import { attachCaptions } from './docx';
import { pictureExt, tidy } from './text';
import type { ReadOptions, StructuredDocument, StructuredPage } from './types';
import { descendants, kid, kidPath, kids, textOf, type XmlElement } from './xml';

const EMU_PER_POINT = 12700;
/** Shapes whose tops differ by at most this much (0.05 inch in EMU) are one row, read left to right (Docling's tolerance). */
const ROW_TOLERANCE_EMU = 45720;

interface Placeholder {
  type: string;
  idx?: string;
}

interface Bullet {
  list: boolean;
  ordered: boolean;
}

function placeholderOf(sp: XmlElement): Placeholder | undefined {
  const nv = kid(sp, 'p:nvSpPr') ?? kid(sp, 'p:nvPicPr') ?? kid(sp, 'p:nvGraphicFramePr');
  const ph = kidPath(nv, 'p:nvPr', 'p:ph');
  if (!ph) return undefined;
  return { type: ph.attrs.type ?? 'body', idx: ph.attrs.idx };
}

/** A paragraph-properties element's own bullet decision, or undefined when it says nothing. */
function bulletIn(pPr: XmlElement | undefined): Bullet | undefined {
  if (!pPr) return undefined;
  if (kid(pPr, 'a:buNone')) return { list: false, ordered: false };
  if (kid(pPr, 'a:buAutoNum')) return { list: true, ordered: true };
  if (kid(pPr, 'a:buChar') || kid(pPr, 'a:buBlip')) return { list: true, ordered: false };
  return undefined;
}

function levelProps(lstStyle: XmlElement | undefined, lvl: number): XmlElement | undefined {
  return kid(lstStyle, `a:lvl${lvl + 1}pPr`);
}

class SlideReader {
  private readonly items: DocItem[] = [];
  private rels = new Map<string, { type: string; target: string; external: boolean }>();

  constructor(
    private readonly pkg: OfficePackage,
    private readonly opts: ReadOptions,
    private readonly layout: XmlElement | undefined,
    private readonly master: XmlElement | undefined,
    private readonly saved: Map<string, string | undefined>,
    /** Comment authors by id: name and initials (ppt/commentAuthors.xml). */
    private readonly authors: Map<string, { name: string; initials: string }> = new Map(),
  ) {}

  read(part: string): DocItem[] {
    const slide = this.pkg.xml(part);
    this.rels = this.pkg.rels(part);
    const tree = kidPath(slide, 'p:cSld', 'p:spTree');
    if (tree) this.shapes(tree);
    const notesRel = [...this.rels.values()].find((r) => r.type === 'notesSlide' && !r.external);
    if (notesRel) this.notes(notesRel.target);
    attachCaptions(this.items);
    this.comments();
    return this.items;
  }

  /** A shape's top-left corner in EMU: its own transform, else its placeholder's on the layout, then the master. */
  private position(sh: XmlElement): { top: number; left: number } | undefined {
    const el = sh.name === 'mc:AlternateContent' ? kids(kid(sh, 'mc:Choice') ?? kid(sh, 'mc:Fallback'))[0] : sh;
    if (!el) return undefined;
    const own = (s: XmlElement | undefined) =>
      kidPath(s, 'p:spPr', 'a:xfrm', 'a:off') ??
      kidPath(s, 'p:xfrm', 'a:off') ??
      kidPath(s, 'p:grpSpPr', 'a:xfrm', 'a:off');
    let off = own(el);
    const ph = off ? undefined : placeholderOf(el);
    if (ph) for (const root of [this.layout, this.master]) off ??= own(this.inherited(root, ph));
    if (!off) return undefined;
    const top = Number(off.attrs.y);
    const left = Number(off.attrs.x);
    return Number.isFinite(top) && Number.isFinite(left) ? { top, left } : undefined;
  }

  /**
   * Shapes in reading order, Docling's rule: by top (then document order), a shape within the
   * row tolerance of the previous one joins its row, each row left to right; shapes with no
   * position last, in document order.
   */
  private ordered(tree: XmlElement): XmlElement[] {
    const FAR = Number.MAX_SAFE_INTEGER;
    const entries = kids(tree).map((shape, index) => {
      const p = this.position(shape);
      return { shape, index, top: p?.top ?? FAR, left: p?.left ?? FAR };
    });
    entries.sort((a, b) => a.top - b.top || a.index - b.index);
    const rows: (typeof entries)[] = [];
    let prev: number | undefined;
    for (const e of entries) {
      if (prev !== undefined && e.top - prev <= ROW_TOLERANCE_EMU) rows[rows.length - 1].push(e);
      else rows.push([e]);
      prev = e.top;
    }
    return rows.flatMap((r) => r.sort((a, b) => a.left - b.left || a.index - b.index).map((e) => e.shape));
  }

  private shapes(tree: XmlElement): void {
    for (const sh of this.ordered(tree)) {
      switch (sh.name) {
        case 'p:sp':
          this.textShape(sh);
          break;
        case 'p:pic':
          this.picture(sh);
          break;
        case 'p:graphicFrame': {
          const tbl = descendants(sh, 'a:tbl')[0];
          const chart = descendants(sh, 'c:chart')[0];
          const uri = descendants(sh, 'a:graphicData')[0]?.attrs.uri ?? '';
          if (tbl) this.items.push(this.table(tbl));
          else if (chart) {
            const rel = this.rels.get(chart.attrs['r:id'] ?? '');
            this.items.push(readChart(this.pkg, rel && !rel.external ? rel.target : undefined));
          } else if (/chart/i.test(uri)) this.items.push({ cls: 'chart', text: '' }); // chartex (waterfall, …): no data read
          break;
        }
        case 'p:grpSp':
          this.shapes(sh);
          break;
        case 'mc:AlternateContent':
          this.shapes(kid(sh, 'mc:Choice') ?? kid(sh, 'mc:Fallback') ?? sh);
          break;
        default:
          break;
      }
    }
  }

  /** The layout's or master's placeholder matching this one (by index, else by type). */
  private inherited(root: XmlElement | undefined, ph: Placeholder): XmlElement | undefined {
    const all = descendants(kidPath(root, 'p:cSld', 'p:spTree') ?? { name: '', attrs: {}, children: [] }, 'p:sp');
    const match = (f: (p: Placeholder) => boolean) =>
      all.find((s) => {
        const p = placeholderOf(s);
        return p !== undefined && f(p);
      });
    return (ph.idx !== undefined ? match((p) => p.idx === ph.idx) : undefined) ?? match((p) => p.type === ph.type);
  }

  private bullet(p: XmlElement, sp: XmlElement, ph: Placeholder | undefined): Bullet {
    const pPr = kid(p, 'a:pPr');
    const lvl = Number(pPr?.attrs.lvl ?? 0);
    const own = bulletIn(pPr) ?? bulletIn(levelProps(kidPath(sp, 'p:txBody', 'a:lstStyle'), lvl));
    if (own) return own;
    if (!ph) return { list: false, ordered: false };
    for (const root of [this.layout, this.master]) {
      const s = this.inherited(root, ph);
      const b = bulletIn(levelProps(kidPath(s, 'p:txBody', 'a:lstStyle'), lvl));
      if (b) return b;
    }
    if (ph.type === 'body' || ph.type === 'obj') {
      const b = bulletIn(levelProps(kidPath(this.master, 'p:txStyles', 'p:bodyStyle'), lvl));
      if (b) return b;
    }
    return { list: false, ordered: false };
  }

  private textShape(sp: XmlElement): void {
    const body = kid(sp, 'p:txBody');
    if (!body) return;
    const ph = placeholderOf(sp);
    const paragraphs = kids(body, 'a:p');
    if (ph && (ph.type === 'title' || ph.type === 'ctrTitle')) {
      const text = tidy(paragraphs.map(paragraphText).join(' '));
      if (text) this.items.push({ cls: 'title', text });
      return;
    }
    if (ph && (ph.type === 'sldNum' || ph.type === 'dt' || ph.type === 'ftr' || ph.type === 'hdr')) {
      const text = tidy(paragraphs.map(paragraphText).join(' '));
      if (text) this.items.push({ cls: ph.type === 'hdr' ? 'page_header' : 'page_footer', text });
      return;
    }
    const counters: number[] = [];
    for (const p of paragraphs) {
      const text = tidy(paragraphText(p));
      if (!text) continue;
      const b = this.bullet(p, sp, ph);
      const lvl = Number(kid(p, 'a:pPr')?.attrs.lvl ?? 0);
      if (!b.list) {
        counters.length = 0;
        this.items.push({ cls: 'text', text });
        continue;
      }
      counters.length = lvl + 1;
      const startAt = Number(kid(kid(p, 'a:pPr'), 'a:buAutoNum')?.attrs.startAt ?? 1);
      counters[lvl] = counters[lvl] === undefined ? startAt : counters[lvl] + 1;
      this.items.push({
        cls: 'list_item',
        level: lvl,
        ordered: b.ordered,
        marker: b.ordered ? `${counters[lvl]}.` : undefined,
        text,
      });
    }
  }

  private picture(pic: XmlElement): void {
    const blip = descendants(pic, 'a:blip')[0];
    const id = blip?.attrs['r:embed'];
    const rel = id ? this.rels.get(id) : undefined;
    const item: DocItem = { cls: 'picture', text: '' };
    // The alt text (`descr`) is not shown on the slide: Folio leaves it out, as Docling does.
    if (rel && !rel.external) {
      if (!this.saved.has(rel.target)) {
        const ext = pictureExt(rel.target);
        const data = ext ? this.pkg.bytesOf(rel.target) : undefined;
        this.saved.set(rel.target, data && ext ? this.opts.savePicture?.(data, ext) : undefined);
      }
      const path = this.saved.get(rel.target);
      if (path) item.imagePath = path;
    }
    this.items.push(item);
  }

  private table(tbl: XmlElement): DocItem {
    const rows: OtslCell[][] = [];
    for (const tr of kids(tbl, 'a:tr')) {
      const row: OtslCell[] = [];
      for (const tc of kids(tr, 'a:tc')) {
        const h = tc.attrs.hMerge === '1' || tc.attrs.hMerge === 'true';
        const v = tc.attrs.vMerge === '1' || tc.attrs.vMerge === 'true';
        if (h && v) row.push({ tag: 'xcel', text: '' });
        else if (h) row.push({ tag: 'lcel', text: '' });
        else if (v) row.push({ tag: 'ucel', text: '' });
        else {
          const text = tidy(kids(kid(tc, 'a:txBody'), 'a:p').map(paragraphText).join(' '));
          row.push({ tag: text ? 'fcel' : 'ecel', text });
        }
      }
      rows.push(row);
    }
    const width = Math.max(0, ...rows.map((r) => r.length));
    for (const r of rows) while (r.length < width) r.push({ tag: 'ecel', text: '' });
    return { cls: 'table', text: '', table: rows };
  }

  /**
   * The slide's review comments (a `comments` part of `p:cm`s), after its content, as Docling
   * writes them: `[author: Name (initials), time: …]: text`, the time as the file writes it.
   */
  private comments(): void {
    for (const r of this.rels.values()) {
      if (r.type !== 'comments' || r.external) continue;
      for (const cm of kids(this.pkg.xml(r.target), 'p:cm')) {
        const who = this.authors.get(cm.attrs.authorId ?? '');
        const author = who?.name ? (who.initials ? `${who.name} (${who.initials})` : who.name) : '';
        const item = commentItem(author, commentTime(cm.attrs.dt ?? '', false), textOf(kid(cm, 'p:text')));
        if (item) this.items.push(item);
      }
    }
  }

  private notes(part: string): void {
    const notes = this.pkg.xml(part);
    const tree = kidPath(notes, 'p:cSld', 'p:spTree');
    if (!tree) return;
    for (const sp of descendants(tree, 'p:sp')) {
      const ph = placeholderOf(sp);
      if (!ph || ph.type !== 'body') continue;
      const text = tidy(kids(kid(sp, 'p:txBody'), 'a:p').map(paragraphText).join(' '));
      if (text) this.items.push({ cls: 'page_footer', text });
    }
  }
}

/** A DrawingML paragraph's text: runs, fields, line breaks. */
function paragraphText(p: XmlElement): string {
  let s = '';
  for (const c of kids(p)) {
    if (c.name === 'a:r' || c.name === 'a:fld') s += textOf(kid(c, 'a:t'));
    else if (c.name === 'a:br') s += '\n';
  }
  return s;
}

export function readPptx(pkg: OfficePackage, opts: ReadOptions = {}): StructuredDocument {
  const main = [...pkg.rels('').values()].find((r) => r.type === 'officeDocument' && !r.external)?.target;
  const presPart = main && pkg.has(main) ? main : 'ppt/presentation.xml';
  const pres = pkg.xml(presPart);
  if (!pres) throw new Error('it has no ppt/presentation.xml: it is not a PowerPoint deck');
  const rels = pkg.rels(presPart);
  const sz = kid(pres, 'p:sldSz');
  const width = Number(sz?.attrs.cx ?? 9144000) / EMU_PER_POINT;
  const height = Number(sz?.attrs.cy ?? 6858000) / EMU_PER_POINT;
  const pages: StructuredPage[] = [];
  const saved = new Map<string, string | undefined>();
  const warnings: string[] = [];
  const authors = new Map<string, { name: string; initials: string }>();
  for (const r of rels.values()) {
    if (r.type !== 'commentAuthors' || r.external) continue;
    for (const a of kids(pkg.xml(r.target), 'p:cmAuthor'))
      authors.set(a.attrs.id ?? '', { name: a.attrs.name ?? '', initials: a.attrs.initials ?? '' });
  }
  let n = 0;
  for (const s of kids(kid(pres, 'p:sldIdLst'), 'p:sldId')) {
    const rel = rels.get(s.attrs['r:id'] ?? '');
    if (!rel || rel.external || !pkg.has(rel.target)) continue;
    n++;
    if (s.attrs.show === '0') warnings.push(`slide ${n} is hidden; it is converted too`);
    const slideRels = pkg.rels(rel.target);
    const layoutPart = [...slideRels.values()].find((r) => r.type === 'slideLayout')?.target;
    const layout = layoutPart ? pkg.xml(layoutPart) : undefined;
    const masterPart = layoutPart
      ? [...pkg.rels(layoutPart).values()].find((r) => r.type === 'slideMaster')?.target
      : undefined;
    const master = masterPart ? pkg.xml(masterPart) : undefined;
    const items = new SlideReader(pkg, opts, layout, master, saved, authors).read(rel.target);
    pages.push({ page: n, width, height, items, label: `slide ${n}` });
  }
  if (pages.length === 0) throw new Error('it has no slides');
  return { format: 'pptx', pages, warnings };
}
