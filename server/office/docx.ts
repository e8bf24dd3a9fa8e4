/**
 * A Word document (DOCX, WordprocessingML) → Folio's items, read from the file's own structure:
 * headings by outline level and style, lists with their numbering (numbering.ts), tables with
 * merged cells, pictures with their captions, charts with their data (chart.ts), text boxes after the paragraph that anchors them,
 * equations as LaTeX (omml.ts), footnotes and endnotes, page headers and footers as furniture.
 * The whole document is one page (Word's pages are made by its layout engine, not the file).
 */
import type { DocItem, InlinePart, OtslCell } from '../model/items';
import { Numbering, type ListLabel } from './numbering';
import { ommlToLatex } from './omml';
import { readChart } from './chart';
import type { OfficePackage, Relationship } from './package';
import { LETTER, type ReadOptions, type StructuredDocument } from './types';
import { descendants, kid, kidPath, kids, textOf, type XmlElement } from './xml';
import { pictureExt, tidy } from './text';

interface Style {
  name: string;
  basedOn?: string;
  outline?: number;
  numId?: string;
  ilvl?: number;
}

/** What the walk of one paragraph's runs found. */
interface Runs {
  parts: InlinePart[];
  pictures: DocItem[];
  boxes: XmlElement[];
}

class DocxReader {
  readonly items: DocItem[] = [];
  readonly warnings: string[] = [];
  private readonly styles = new Map<string, Style>();
  private readonly numbering: Numbering;
  private rels = new Map<string, Relationship>();
  private placeholders = 0;
  private readonly savedByPart = new Map<string, string | undefined>();

  constructor(
    private readonly pkg: OfficePackage,
    private readonly opts: ReadOptions,
    private readonly docPart: string,
  ) {
    for (const s of kids(pkg.xml(partNear(docPart, 'styles.xml')), 'w:style')) {
      const id = s.attrs['w:styleId'];
      if (!id) continue;
      const pPr = kid(s, 'w:pPr');
      const outline = kid(pPr, 'w:outlineLvl')?.attrs['w:val'];
      const numPr = kid(pPr, 'w:numPr');
      this.styles.set(id, {
        name: kid(s, 'w:name')?.attrs['w:val'] ?? id,
        basedOn: kid(s, 'w:basedOn')?.attrs['w:val'],
        outline: outline === undefined ? undefined : Number(outline),
        numId: kid(numPr, 'w:numId')?.attrs['w:val'],
        ilvl: numPr ? Number(kid(numPr, 'w:ilvl')?.attrs['w:val'] ?? 0) : undefined,
      });
    }
    this.numbering = new Numbering(pkg.xml(partNear(docPart, 'numbering.xml')));
  }

  /** A style property, looked up the `basedOn` chain. */
  private styleProp<K extends keyof Style>(id: string | undefined, key: K): Style[K] | undefined {
    for (let depth = 0; id && depth < 12; depth++) {
      const s = this.styles.get(id);
      if (!s) return undefined;
      if (s[key] !== undefined) return s[key];
      id = s.basedOn;
    }
    return undefined;
  }

  private styleNames(id: string | undefined): string[] {
    const out: string[] = [];
    for (let depth = 0; id && depth < 12; depth++) {
      const s = this.styles.get(id);
      out.push(id.toLowerCase(), (s?.name ?? '').toLowerCase());
      id = s?.basedOn;
    }
    return out;
  }

  read(): StructuredDocument {
    const doc = this.pkg.xml(this.docPart);
    const body = kid(doc, 'w:body');
    if (!body) throw new Error('the document part has no body');
    this.rels = this.pkg.rels(this.docPart);
    const sect = kid(body, 'w:sectPr') ?? descendants(body, 'w:sectPr').pop();
    const headers = this.furniture(sect, 'w:headerReference', 'page_header');
    const footers = this.furniture(sect, 'w:footerReference', 'page_footer');
    this.items.push(...headers);
    this.blocks(body, this.items);
    this.notes('footnotes.xml', 'w:footnote');
    this.notes('endnotes.xml', 'w:endnote');
    this.items.push(...footers);
    attachCaptions(this.items);
    if (this.placeholders > 0)
      this.warnings.push(
        `${this.placeholders} picture(s) in a format Folio does not save (EMF, WMF, TIFF, linked files) are placeholders`,
      );
    const pgSz = kid(sect, 'w:pgSz');
    const w = Number(pgSz?.attrs['w:w']) / 20;
    const h = Number(pgSz?.attrs['w:h']) / 20;
    const size = w > 0 && h > 0 ? { width: w, height: h } : LETTER;
    return { format: 'docx', pages: [{ page: 1, ...size, items: this.items }], warnings: this.warnings };
  }

  /** Block-level content in order: paragraphs, tables, content controls. */
  private blocks(el: XmlElement, out: DocItem[]): void {
    for (const c of kids(el)) {
      switch (c.name) {
        case 'w:p':
          this.paragraph(c, out);
          break;
        case 'w:tbl':
          out.push(this.table(c));
          break;
        case 'w:sdt':
          this.blocks(kid(c, 'w:sdtContent') ?? c, out);
          break;
        case 'w:customXml':
        case 'w:ins':
        case 'w:moveTo':
          this.blocks(c, out);
          break;
        case 'mc:AlternateContent':
          this.blocks(chooseAlternate(c), out);
          break;
        default:
          break;
      }
    }
  }

  private paragraph(p: XmlElement, out: DocItem[]): void {
    const pPr = kid(p, 'w:pPr');
    const styleId = kid(pPr, 'w:pStyle')?.attrs['w:val'];
    const names = this.styleNames(styleId);
    const runs: Runs = { parts: [], pictures: [], boxes: [] };
    this.inline(p, runs);
    const parts = mergeParts(runs.parts);
    const plain = parts
      .filter((x) => !x.math)
      .map((x) => x.text)
      .join('');
    const hasText = plain.trim().length > 0;
    const maths = parts.filter((x) => x.math);

    const numPr = kid(pPr, 'w:numPr');
    const numId = kid(numPr, 'w:numId')?.attrs['w:val'] ?? this.styleProp(styleId, 'numId');
    const ilvl = Number(kid(numPr, 'w:ilvl')?.attrs['w:val'] ?? this.styleProp(styleId, 'ilvl') ?? 0);
    const outlineDirect = kid(pPr, 'w:outlineLvl')?.attrs['w:val'];
    const outline = outlineDirect !== undefined ? Number(outlineDirect) : this.styleProp(styleId, 'outline');
    const isTitle = names.some((n) => n === 'title');
    const headingName = names.find((n) => /heading/.test(n));
    let headingLevel: number | undefined;
    if (!isTitle && outline !== undefined && outline >= 0 && outline <= 8) headingLevel = outline + 1;
    else if (headingName) headingLevel = Math.max(1, Number(/(\d+)/.exec(headingName)?.[1] ?? 1));

    let list: ListLabel | undefined;
    if (hasText || maths.length > 0) {
      const text = tidy(plain);
      if (isTitle && hasText) out.push({ cls: 'title', text });
      else if (headingLevel !== undefined && hasText) {
        let label = '';
        if (numId && this.numbering.visible(numId, ilvl)) {
          const l = this.numbering.next(numId, ilvl);
          if (l?.ordered) label = l.numbers.join('.') + ' ';
        }
        out.push({ cls: 'section_header', level: headingLevel, text: label + text });
      } else if (!hasText) {
        for (const m of maths) out.push({ cls: 'formula', text: m.text });
      } else if (names.some((n) => n === 'caption')) {
        out.push(withParts({ cls: 'caption', text }, parts));
      } else if (numId && numId !== '0' && (list = this.numbering.next(numId, ilvl)) !== undefined) {
        const l = list;
        out.push(
          withParts(
            { cls: 'list_item', level: ilvl, ordered: l?.ordered ?? false, marker: listMarker(l?.label), text },
            parts,
          ),
        );
      } else if (names.some((n) => /code|source|preformatted|macro/.test(n))) {
        out.push({ cls: 'code', text: plainText(p).replace(/\s+$/, '') });
      } else {
        const box = checkboxOf(p);
        if (box !== undefined)
          out.push({
            cls: box ? 'checkbox_selected' : 'checkbox_unselected',
            text: tidy(text.replace(/^[\u2610\u2611\u2612]/, '')),
          });
        else out.push(withParts({ cls: 'text', text }, parts));
      }
    }
    out.push(...runs.pictures);
    for (const box of runs.boxes) this.blocks(box, out);
  }

  /** Runs and inline content of a paragraph (or of a hyperlink, a field, an insertion…). */
  private inline(el: XmlElement, acc: Runs): void {
    for (const c of kids(el)) {
      switch (c.name) {
        case 'w:r':
          this.run(c, acc);
          break;
        case 'm:oMath':
        case 'm:oMathPara':
          acc.parts.push({ math: true, text: ommlToLatex(c) });
          break;
        case 'w:hyperlink':
        case 'w:ins':
        case 'w:moveTo':
        case 'w:smartTag':
        case 'w:fldSimple':
        case 'w:customXml':
        case 'w:bdo':
        case 'w:dir':
          this.inline(c, acc);
          break;
        case 'w:sdt':
          this.inline(kid(c, 'w:sdtContent') ?? c, acc);
          break;
        case 'mc:AlternateContent':
          this.inline(chooseAlternate(c), acc);
          break;
        default:
          break; // w:pPr, w:del, w:moveFrom, bookmarks, comments' ranges
      }
    }
  }

  private run(r: XmlElement, acc: Runs): void {
    for (const c of kids(r)) {
      switch (c.name) {
        case 'w:t':
          acc.parts.push({ math: false, text: textOf(c) });
          break;
        case 'w:tab':
        case 'w:ptab':
          acc.parts.push({ math: false, text: '\t' });
          break;
        case 'w:br':
        case 'w:cr':
          acc.parts.push({ math: false, text: '\n' });
          break;
        case 'w:noBreakHyphen':
          acc.parts.push({ math: false, text: '-' });
          break;
        case 'w:sym': {
          const code = parseInt(c.attrs['w:char'] ?? '', 16);
          if (code >= 0x20 && code < 0xf000) acc.parts.push({ math: false, text: String.fromCodePoint(code) });
          break;
        }
        case 'w:drawing':
        case 'w:pict':
        case 'w:object':
          this.drawing(c, acc);
          break;
        case 'mc:AlternateContent':
          this.run(chooseAlternate(c), acc);
          break;
        default:
          break; // w:rPr, w:instrText (a field's code), w:fldChar, references
      }
    }
  }

  /** A drawing: its pictures (DrawingML blips, VML image data), its charts (title and data, chart.ts) and its text boxes. */
  private drawing(el: XmlElement, acc: Runs): void {
    const boxes = descendants(el, 'w:txbxContent');
    acc.boxes.push(...boxes);
    const ids = [
      ...descendants(el, 'a:blip').map((b) => b.attrs['r:embed'] ?? b.attrs['r:link']),
      ...descendants(el, 'v:imagedata').map((b) => b.attrs['r:id']),
    ].filter((x): x is string => !!x);
    for (const id of ids) acc.pictures.push(this.picture(id));
    for (const c of descendants(el, 'c:chart')) {
      const rel = this.rels.get(c.attrs['r:id'] ?? '');
      acc.pictures.push(readChart(this.pkg, rel && !rel.external ? rel.target : undefined));
    }
  }

  private picture(relId: string): DocItem {
    const rel = this.rels.get(relId);
    const item: DocItem = { cls: 'picture', text: '' };
    if (!rel || rel.external) {
      this.placeholders++; // a linked picture is never fetched
      return item;
    }
    if (this.savedByPart.has(rel.target)) {
      const known = this.savedByPart.get(rel.target);
      if (known) item.imagePath = known;
      return item;
    }
    const ext = pictureExt(rel.target);
    const data = ext ? this.pkg.bytesOf(rel.target) : undefined;
    const path = data && ext ? this.opts.savePicture?.(data, ext) : undefined;
    if (!ext) this.placeholders++;
    this.savedByPart.set(rel.target, path);
    if (path) item.imagePath = path;
    return item;
  }

  private table(tbl: XmlElement): DocItem {
    const rows: OtslCell[][] = [];
    const cellText = (tc: XmlElement): string => {
      const inner: DocItem[] = [];
      this.blocks(tc, inner);
      return tidy(inner.map(cellPiece).filter(Boolean).join(' '));
    };
    for (const tr of kids(tbl, 'w:tr')) {
      const row: OtslCell[] = [];
      const header = kidPath(tr, 'w:trPr', 'w:tblHeader') !== undefined;
      const before = Number(kidPath(tr, 'w:trPr', 'w:gridBefore')?.attrs['w:val'] ?? 0);
      for (let i = 0; i < before; i++) row.push({ tag: 'ecel', text: '' });
      const cells = kids(tr).flatMap((c) =>
        c.name === 'w:tc' ? [c] : c.name === 'w:sdt' ? kids(kid(c, 'w:sdtContent'), 'w:tc') : [],
      );
      for (const tc of cells) {
        const tcPr = kid(tc, 'w:tcPr');
        const span = Math.max(1, Number(kid(tcPr, 'w:gridSpan')?.attrs['w:val'] ?? 1));
        const vMerge = kid(tcPr, 'w:vMerge');
        const continued = vMerge !== undefined && (vMerge.attrs['w:val'] ?? 'continue') === 'continue';
        if (continued) {
          row.push({ tag: 'ucel', text: '' });
          for (let i = 1; i < span; i++) row.push({ tag: 'xcel', text: '' });
        } else {
          const text = cellText(tc);
          row.push({ tag: text ? (header ? 'ched' : 'fcel') : 'ecel', text });
          for (let i = 1; i < span; i++) row.push({ tag: 'lcel', text: '' });
        }
      }
      rows.push(row);
    }
    const width = Math.max(0, ...rows.map((r) => r.length));
    for (const r of rows) while (r.length < width) r.push({ tag: 'ecel', text: '' });
    // A vertical merge under nothing (a damaged table) is an empty cell.
    rows[0]?.forEach((c, i) => {
      if (c.tag === 'ucel') rows[0][i] = { tag: 'ecel', text: '' };
      if (c.tag === 'xcel') rows[0][i] = { tag: 'lcel', text: '' };
    });
    return { cls: 'table', text: '', table: rows };
  }

  /** Page headers and footers of the last section, as furniture (each distinct text once). */
  private furniture(sect: XmlElement | undefined, ref: string, cls: 'page_header' | 'page_footer'): DocItem[] {
    const out: DocItem[] = [];
    const seen = new Set<string>();
    for (const r of kids(sect, ref)) {
      const rel = this.rels.get(r.attrs['r:id'] ?? '');
      if (!rel || rel.external) continue;
      const root = this.pkg.xml(rel.target);
      if (!root) continue;
      for (const p of descendants(root, 'w:p')) {
        const text = tidy(plainText(p));
        if (!text || seen.has(text)) continue;
        seen.add(text);
        out.push({ cls, text });
      }
    }
    return out;
  }

  /** Footnotes or endnotes, in their order, after the body. */
  private notes(file: string, tag: string): void {
    const root = this.pkg.xml(partNear(this.docPart, file));
    for (const n of kids(root, tag)) {
      const type = n.attrs['w:type'];
      if (type === 'separator' || type === 'continuationSeparator' || type === 'continuationNotice') continue;
      const text = tidy(
        kids(n, 'w:p')
          .map((p) => plainText(p))
          .join(' '),
      );
      if (text) this.items.push({ cls: 'footnote', text });
    }
  }
}

/** The part next to the main document (`word/styles.xml` beside `word/document.xml`). */
function partNear(docPart: string, file: string): string {
  return docPart.slice(0, docPart.lastIndexOf('/') + 1) + file;
}

/** Markup compatibility: the first choice Folio reads (DrawingML), else the fallback. */
function chooseAlternate(el: XmlElement): XmlElement {
  return kid(el, 'mc:Choice') ?? kid(el, 'mc:Fallback') ?? el;
}

/**
 * A list item's label: a multi-level number with no closing mark (Word's "%1.%2" prints "1.1") is
 * closed with a dot ("1.1."), as Docling writes it, so that DocTags can carry it: "1.1" at the
 * start of an item's text reads as a decimal (server/doctags/listLabel.ts). Headings keep theirs.
 */
function listMarker(label: string | undefined): string | undefined {
  return label && /^\d+(?:\.\d+)+$/.test(label) ? `${label}.` : label;
}

/** A paragraph's visible text alone (no math, no pictures), for furniture, notes and code. */
function plainText(p: XmlElement): string {
  let s = '';
  const walk = (el: XmlElement) => {
    for (const c of kids(el)) {
      if (c.name === 'w:t') s += textOf(c);
      else if (c.name === 'w:tab') s += '\t';
      else if (c.name === 'w:br' || c.name === 'w:cr') s += '\n';
      else if (c.name === 'w:p') {
        if (s && !s.endsWith('\n')) s += '\n';
        walk(c);
      } else if (c.name !== 'w:del' && c.name !== 'w:instrText' && c.name !== 'mc:Fallback' && c.name !== 'w:rPr')
        walk(c);
    }
  };
  walk(p);
  return s;
}

function mergeParts(parts: InlinePart[]): InlinePart[] {
  const out: InlinePart[] = [];
  for (const p of parts) {
    const last = out[out.length - 1];
    if (last && !last.math && !p.math) last.text += p.text;
    else out.push({ ...p });
  }
  return out;
}

/** Running text with inline math keeps its parts (DocTags `<inline>`); `text` writes math as `$…$`. */
function withParts(item: DocItem, parts: InlinePart[]): DocItem {
  if (!parts.some((p) => p.math)) return item;
  const tidied = parts.map((p) => ({ math: p.math, text: p.math ? p.text : p.text.replace(/\s+/g, ' ') }));
  item.parts = tidied;
  item.text = tidy(tidied.map((p) => (p.math ? `$${p.text}$` : p.text)).join(''));
  return item;
}

/** The text one block contributes to a table cell (a nested table: its cells' text). */
function cellPiece(it: DocItem): string {
  if (it.table)
    return it.table
      .flatMap((r) => r.map((c) => c.text))
      .filter(Boolean)
      .join(' ');
  if (it.cls === 'list_item') return (it.marker ?? '-') + ' ' + it.text;
  if (it.cls === 'checkbox_selected' || it.cls === 'checkbox_unselected')
    return `- [${it.cls === 'checkbox_selected' ? 'x' : ' '}] ${it.text}`;
  return it.text;
}

/**
 * A paragraph that opens with a checkbox content control (`w14:checkbox` in a `w:sdt`): whether it
 * is checked; undefined for any other paragraph. Docling reads such a paragraph as a checkbox item.
 */
function checkboxOf(p: XmlElement): boolean | undefined {
  for (const c of kids(p)) {
    if (c.name === 'w:pPr') continue;
    if (c.name !== 'w:sdt') return undefined;
    const box = kids(kid(c, 'w:sdtPr')).find((x) => x.name.endsWith(':checkbox'));
    if (!box) return undefined;
    const checked = kids(box).find((x) => x.name.endsWith(':checked'));
    const v = Object.entries(checked?.attrs ?? {}).find(([k]) => k.endsWith(':val') || k === 'val')?.[1];
    return checked !== undefined && (v === undefined || v === '1' || v === 'true');
  }
  return undefined;
}

/** Captions written as their own paragraphs ("Figure 1: …") go with the picture or table beside them. */
export function attachCaptions(items: DocItem[]): void {
  const owns = (it: DocItem | undefined) =>
    it !== undefined && (it.cls === 'picture' || it.cls === 'table' || it.cls === 'chart') && !it.caption;
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    if (it.cls !== 'caption') continue;
    const owner = owns(items[i - 1]) ? items[i - 1] : owns(items[i + 1]) ? items[i + 1] : undefined;
    if (!owner) continue;
    owner.caption = { ...it, cls: 'caption' };
    items.splice(i, 1);
    i--;
  }
}

/** The main document part named by the package's relationships (`word/document.xml` as a rule). */
export function readDocx(pkg: OfficePackage, opts: ReadOptions = {}): StructuredDocument {
  const main = [...pkg.rels('').values()].find((r) => r.type === 'officeDocument' && !r.external)?.target;
  const docPart = main && pkg.has(main) ? main : 'word/document.xml';
  if (!pkg.has(docPart)) throw new Error('it has no word/document.xml: it is not a Word document');
  return new DocxReader(pkg, opts, docPart).read();
}
