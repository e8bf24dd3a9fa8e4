/**
 * Folio's pages → a DoclingDocument (docling-core's JSON document model), so Docling-based
 * tooling (its chunkers, serializers, viewers) can take Folio's output as it takes Docling's.
 *
 * Layout of the document, as docling-core builds it from a PDF:
 * - every item is in `texts`, `tables`, `pictures`, `groups`, `key_value_items` or `form_items`,
 *   addressed by JSON pointer (`#/texts/3`), with `parent` and `children` references;
 * - `body` lists the top-level items in reading order; list items sit in a `list` group (a
 *   nested list is a group under the list item it belongs to); captions are children of the
 *   table/picture/code they caption and listed in its `captions`;
 * - page headers and footers are in the body with `content_layer: "furniture"`;
 * - provenance boxes are in PDF points with `coord_origin: "BOTTOMLEFT"` (docling's origin for
 *   PDF pages): `t` = page height − top, `b` = page height − bottom.
 *
 * The document is built through `DoclingBuilder` (doclingBuilder.ts), whose methods are
 * docling-core's `DoclingDocument.add_*`; this file holds what is Folio's: which call each kind
 * of page item becomes (`addItem`, as docling's `readingorder_model.py` does for its elements),
 * how list items nest, and the provenance boxes.
 */
import { pathToFileURL } from 'node:url';
import { readPictureHeader } from './pictureFile';
import type {
  BoundingBox,
  CodeLanguageLabel,
  ContentLayer,
  DoclingDocument,
  DocumentOrigin,
  GraphData,
  ImageRef,
  ListItem,
  PictureItem,
  ProvenanceItem,
  RefItem,
  TextItem,
  UnorderedList,
} from '@docling/docling-core';
import type { BBox } from '../../common/protocol';
import { type DocItem, fromGrid } from '../model/items';
import type { ExportPage } from './pages';
import { otslToTableData } from './doclingTable';
import { numberOfLabel } from '../doctags/listLabel';
import { DoclingBuilder } from './doclingBuilder';

export { DOCLING_SCHEMA_VERSION } from './doclingBuilder';

const CODE_LANGUAGES: readonly CodeLanguageLabel[] = [
  'Ada',
  'Awk',
  'Bash',
  'bc',
  'C',
  'C#',
  'C++',
  'CMake',
  'COBOL',
  'CSS',
  'Ceylon',
  'Clojure',
  'Crystal',
  'Cuda',
  'Cython',
  'D',
  'Dart',
  'dc',
  'Dockerfile',
  'Elixir',
  'Erlang',
  'FORTRAN',
  'Forth',
  'Go',
  'HTML',
  'Haskell',
  'Haxe',
  'Java',
  'JavaScript',
  'Julia',
  'Kotlin',
  'Lisp',
  'Lua',
  'Matlab',
  'MoonScript',
  'Nim',
  'OCaml',
  'ObjectiveC',
  'Octave',
  'PHP',
  'Pascal',
  'Perl',
  'Prolog',
  'Python',
  'Racket',
  'Ruby',
  'Rust',
  'SML',
  'SQL',
  'Scala',
  'Scheme',
  'Swift',
  'TypeScript',
  'unknown',
  'VisualBasic',
  'XML',
  'YAML',
];

export interface DoclingOptions {
  /** Document name (docling uses the file name without extension). */
  name: string;
  /** The source file, for `origin`. */
  origin?: { filename: string; mimetype: string; binaryHash: number; uri?: string };
  /** Folder that relative picture paths are relative to (the Markdown's folder), to read their size. */
  baseDir?: string;
  /** Folder the picture files must really be inside (server/export/pictureFile.ts); default `baseDir`. */
  picturesRoot?: string;
  /**
   * Filled with the references of the document items made from each page item (the chunker's
   * `doc_items`, server/export/doclingChunks.ts): `items` for the item itself (a list item, a
   * table; the text and formula parts of running text with inline math), `caption` for its caption.
   */
  refs?: Map<DocItem, ItemRefs>;
}

export interface ItemRefs {
  items: string[];
  caption?: string;
}

/** PNG pixel size from the IHDR chunk; undefined when the file is missing or not a PNG. */
function pngSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length < 24 || bytes.readUInt32BE(0) !== 0x89504e47 || bytes.toString('ascii', 12, 16) !== 'IHDR')
    return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** The PNG header of an embedded picture, or of a picture file read under pictureFile's checks (only its first bytes). */
function imageHeader(uri: string, opts: DoclingOptions): Buffer | undefined {
  try {
    if (uri.startsWith('data:')) {
      const comma = uri.indexOf(',');
      return comma > 0 && /;base64$/.test(uri.slice(0, comma))
        ? Buffer.from(uri.slice(comma + 1, comma + 1 + 64), 'base64')
        : undefined;
    }
    if (!opts.baseDir) return undefined;
    return readPictureHeader(uri, { baseDir: opts.baseDir, root: opts.picturesRoot });
  } catch {
    return undefined;
  }
}

function bottomLeft(b: BBox, pageHeight: number): BoundingBox {
  const r = (v: number) => Math.round(v * 100) / 100;
  return { l: r(b.x0), t: r(pageHeight - b.y0), r: r(b.x1), b: r(pageHeight - b.y1), coord_origin: 'BOTTOMLEFT' };
}

/** One page's provenance of an item: its box (or its grid's, or none) and the span of `text`. */
type Provenance = (it: DocItem, text?: string) => ProvenanceItem;

function provenanceOn(page: ExportPage): Provenance {
  const size = { width: page.width || 1, height: page.height || 1 };
  return (it, text = '') => {
    const b = it.bbox ?? (it.grid ? fromGrid(it.grid, size) : { x0: 0, y0: 0, x1: 0, y1: 0 });
    return { page_no: page.page, bbox: bottomLeft(b, size.height), charspan: [0, text.length] };
  };
}

/** `add_page`, for a page of known size; its rendered image when there is one. */
function addPageOf(doc: DoclingBuilder, page: ExportPage): void {
  if (!(page.width > 0 && page.height > 0)) return;
  let image: ImageRef | undefined;
  if (page.image) {
    image = {
      mimetype: 'image/png',
      dpi: Math.round((72 * page.image.width) / page.width),
      size: { width: page.image.width, height: page.image.height },
      uri: pathToFileURL(page.image.path).href,
    };
  }
  doc.addPage(page.page, { width: page.width, height: page.height }, image);
}

/**
 * The lists open at the current item, outermost first: Folio's list items carry a level, and
 * docling-core wants them in list groups, a nested list under the item above it.
 */
class OpenLists {
  private lists: { group: UnorderedList; ordered: boolean; count: number; last?: ListItem }[] = [];

  constructor(private readonly doc: DoclingBuilder) {}

  /** Anything but a list item ends every open list. */
  close(): void {
    this.lists = [];
  }

  add(it: DocItem, prov: ProvenanceItem): ListItem {
    const lists = this.lists;
    const ordered = it.ordered === true;
    // Depth as Markdown shows it: at most one below the lists open now.
    const depth = Math.min(Math.max(0, Math.round(it.level ?? 0)), lists.length);
    lists.length = Math.min(lists.length, depth + 1);
    if (lists.length === depth + 1 && lists[depth]!.ordered !== ordered) lists.length = depth; // another list starts
    if (lists.length === depth) {
      // A nested list belongs to the item above it, as docling nests them.
      const parent = depth === 0 ? this.doc.body : lists[depth - 1]!.last!;
      lists.push({ group: this.doc.addListGroup(parent), ordered, count: 0 });
    }
    const open = lists[depth]!;
    open.count++;
    // Numbering goes on from a printed number ("212." then "213."), as Folio's Markdown counts.
    const num = ordered && it.marker ? numberOfLabel(it.marker) : undefined;
    if (num) open.count = num.n;
    open.last = this.doc.addListItem({
      text: it.text,
      prov,
      parent: open.group,
      enumerated: ordered,
      // The label printed on the page ("(4)", "3)", "212.") is docling-core's `marker`;
      // without one, the position, as docling numbers an enumerated list.
      marker: ordered ? (it.marker ?? `${open.count}.`) : '-',
    });
    return open.last;
  }
}

/** What the export of one page item needs: the document, the open lists, the page's provenance. */
interface ItemContext {
  doc: DoclingBuilder;
  lists: OpenLists;
  prov: Provenance;
  opts: DoclingOptions;
}

const madeOf = (item: { self_ref: string }): ItemRefs => ({ items: [item.self_ref] });

/** The item made, and its caption (a child of the item, see DoclingBuilder.addCaption) when it has one. */
function withCaption(
  ctx: ItemContext,
  owner: { self_ref: string; children?: RefItem[]; captions?: RefItem[] },
  it: DocItem,
): ItemRefs {
  const made = madeOf(owner);
  if (!it.caption) return made;
  const capBox: DocItem = { ...it.caption, bbox: it.caption.bbox ?? (it.caption.grid ? undefined : it.bbox) };
  made.caption = ctx.doc.addCaption(owner, { text: it.caption.text, prov: ctx.prov(capBox, it.caption.text) }).self_ref;
  return made;
}

/** `add_table`: a table, or a document index (text as Folio reads it; a table in docling: one cell holds it). */
function addTableOf(ctx: ItemContext, it: DocItem, label: 'table' | 'document_index', layer: ContentLayer): ItemRefs {
  // A document index Folio found has its entries as rows; one read as text is one cell.
  const rows = label === 'table' || it.table?.length ? (it.table ?? []) : [[{ tag: 'fcel' as const, text: it.text }]];
  const table = ctx.doc.addTable({ label, data: otslToTableData(rows), prov: ctx.prov(it), content_layer: layer });
  return withCaption(ctx, table, it);
}

/** `add_picture`: its image (size and resolution read from the PNG) and a chart's data as an annotation. */
function addPictureOf(ctx: ItemContext, it: DocItem, label: 'picture' | 'chart', layer: ContentLayer): ItemRefs {
  let image: ImageRef | undefined;
  if (it.imagePath) {
    const bytes = imageHeader(it.imagePath, ctx.opts);
    const px = bytes ? pngSize(bytes) : undefined;
    const widthPt = it.bbox ? it.bbox.x1 - it.bbox.x0 : 0;
    image = {
      mimetype: 'image/png',
      dpi: px && widthPt > 0 ? Math.round((72 * px.width) / widthPt) : 72,
      size: px ?? { width: 0, height: 0 },
      uri: it.imagePath,
    };
  }
  const annotations: PictureItem['annotations'] = [];
  if (it.table && it.table.length > 0)
    annotations.push({
      kind: 'tabular_chart_data',
      title: it.caption?.text ?? '',
      chart_data: otslToTableData(it.table),
    });
  // The chart's kind as docling's classification (docling-core moves it into `meta`).
  if (label === 'chart' && it.chartKind)
    annotations.push({
      kind: 'classification',
      provenance: 'folio',
      predicted_classes: [{ class_name: it.chartKind, confidence: 1 }],
    });
  const picture = ctx.doc.addPicture({ label, annotations, image, prov: ctx.prov(it), content_layer: layer });
  return withCaption(ctx, picture, it);
}

/**
 * Running text with inline math: docling-core's inline group, text and formula items in reading
 * order (as its DocTags `<inline>` element), so the math survives.
 */
function addInlineTextOf(ctx: ItemContext, it: DocItem, layer: ContentLayer): ItemRefs {
  const group = ctx.doc.addInlineGroup(ctx.doc.body, layer);
  const made: ItemRefs = { items: [] };
  for (const part of it.parts ?? []) {
    if (part.text.length === 0) continue;
    const args = { text: part.text, prov: ctx.prov(it, part.text), parent: group, content_layer: layer };
    made.items.push((part.math ? ctx.doc.addFormula(args) : ctx.doc.addText('text', args)).self_ref);
  }
  return made;
}

/** The one-cell graph of a form or key-value region: Folio reads its text, not its fields. */
function graphOf(it: DocItem): GraphData {
  return { cells: [{ label: 'unspecified', cell_id: 0, text: it.text, orig: it.text }], links: [] };
}

/** One page item → the DoclingBuilder call(s) for its kind; the references of what was made. */
function addItem(ctx: ItemContext, it: DocItem): ItemRefs {
  const { doc, prov } = ctx;
  const layer: ContentLayer = it.cls === 'page_header' || it.cls === 'page_footer' ? 'furniture' : 'body';
  const text = { text: it.text, prov: prov(it, it.text), content_layer: layer };
  switch (it.cls) {
    case 'list_item':
      return madeOf(ctx.lists.add(it, text.prov));
    case 'title':
      return madeOf(doc.addTitle(text));
    case 'section_header':
      return madeOf(doc.addHeading({ ...text, level: Math.min(100, Math.max(1, Math.round(it.level ?? 1))) }));
    case 'code': {
      const code_language = CODE_LANGUAGES.find((l) => l === it.language) ?? 'unknown';
      return withCaption(ctx, doc.addCode({ ...text, code_language }), it);
    }
    case 'formula':
      return withCaption(ctx, doc.addFormula(text), it); // FormulaItem has no `captions`: the caption is its child
    case 'table':
    case 'document_index':
      return addTableOf(ctx, it, it.cls, layer);
    case 'picture':
    case 'chart':
      return addPictureOf(ctx, it, it.cls, layer);
    case 'form':
      return madeOf(doc.addForm({ graph: graphOf(it), prov: prov(it), content_layer: layer }));
    case 'key_value_region':
      return madeOf(doc.addKeyValues({ graph: graphOf(it), prov: prov(it), content_layer: layer }));
    default:
      if (it.cls === 'text' && it.parts?.some((p) => p.math)) return addInlineTextOf(ctx, it, layer);
      // text, caption (on its own), footnote, page_header, page_footer, checkboxes
      return madeOf(doc.addText(it.cls as TextItem['label'], text));
  }
}

function originOf(opts: DoclingOptions): DocumentOrigin | undefined {
  if (!opts.origin) return undefined;
  const origin: DocumentOrigin = {
    mimetype: opts.origin.mimetype,
    binary_hash: opts.origin.binaryHash,
    filename: opts.origin.filename,
  };
  if (opts.origin.uri) origin.uri = opts.origin.uri;
  return origin;
}

export function toDoclingDocument(pages: readonly ExportPage[], opts: DoclingOptions): DoclingDocument {
  const doc = new DoclingBuilder();
  const lists = new OpenLists(doc);
  for (const page of pages) {
    addPageOf(doc, page);
    const ctx: ItemContext = { doc, lists, prov: provenanceOn(page), opts };
    for (const it of page.items) {
      if (it.cls !== 'list_item') lists.close();
      const made = addItem(ctx, it); // not inside `opts.refs?.set(…)`: `?.` would skip the call with it
      opts.refs?.set(it, made);
    }
  }
  return doc.document(opts.name, originOf(opts));
}
