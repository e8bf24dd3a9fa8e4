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
 * The version written is the oldest schema the output is checked against (1.3.0, the schema of
 * the `@docling/docling-core` types); the tests check it against 1.3.0 and 1.10.0.
 */
import { pathToFileURL } from 'node:url';
import { readPictureHeader } from './pictureFile';
import type {
  BoundingBox,
  CodeItem,
  CodeLanguageLabel,
  DoclingDocument,
  FormItem,
  FormulaItem,
  GroupItem,
  KeyValueItem,
  ListItem,
  PageItem,
  PictureItem,
  ProvenanceItem,
  RefItem,
  SectionHeaderItem,
  TableItem,
  TextItem,
  TitleItem,
  UnorderedList,
} from '@docling/docling-core';
import type { BBox } from '../../common/protocol';
import { type DocItem, fromGrid } from '../model/items';
import type { ExportPage } from './pages';
import { otslToTableData } from './doclingTable';
import { numberOfLabel } from '../doctags/listLabel';

export const DOCLING_SCHEMA_VERSION = '1.3.0';

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

type TextLike = TitleItem | SectionHeaderItem | ListItem | CodeItem | FormulaItem | TextItem;
type Group = UnorderedList | GroupItem;

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

export function toDoclingDocument(pages: readonly ExportPage[], opts: DoclingOptions): DoclingDocument {
  const body: GroupItem = {
    self_ref: '#/body',
    parent: null,
    children: [],
    content_layer: 'body',
    name: '_root_',
    label: 'unspecified',
  };
  const furniture: GroupItem = {
    self_ref: '#/furniture',
    parent: null,
    children: [],
    content_layer: 'furniture',
    name: '_root_',
    label: 'unspecified',
  };
  const texts: TextLike[] = [];
  const tables: TableItem[] = [];
  const pictures: PictureItem[] = [];
  const groups: Group[] = [];
  const kvItems: KeyValueItem[] = [];
  const formItems: FormItem[] = [];
  const pageItems: Record<string, PageItem> = {};
  const ref = (self_ref: string): RefItem => ({ $ref: self_ref });

  /** Open lists, outermost first: the group, its items so far and the last one (set as soon as the group is). */
  let lists: { group: Group; ordered: boolean; count: number; last: ListItem }[] = [];

  /** The references made from the page item being exported (see DoclingOptions.refs). */
  let made: ItemRefs = { items: [] };
  const addText = <T extends TextLike>(
    t: Omit<T, 'self_ref'>,
    parent: { self_ref: string; children?: RefItem[] },
  ): T => {
    const item = { self_ref: `#/texts/${texts.length}`, ...t, parent: ref(parent.self_ref) } as T;
    texts.push(item);
    (parent.children ??= []).push(ref(item.self_ref));
    made.items.push(item.self_ref);
    return item;
  };
  const madeOther = (self_ref: string) => made.items.push(self_ref);

  for (const page of pages) {
    if (page.width > 0 && page.height > 0) {
      const p: PageItem = { size: { width: page.width, height: page.height }, page_no: page.page };
      if (page.image) {
        p.image = {
          mimetype: 'image/png',
          dpi: Math.round((72 * page.image.width) / page.width),
          size: { width: page.image.width, height: page.image.height },
          uri: pathToFileURL(page.image.path).href,
        };
      }
      pageItems[String(page.page)] = p;
    }
    const size = { width: page.width || 1, height: page.height || 1 };
    const prov = (it: DocItem, text = ''): ProvenanceItem[] => {
      const b = it.bbox ?? (it.grid ? fromGrid(it.grid, size) : { x0: 0, y0: 0, x1: 0, y1: 0 });
      return [{ page_no: page.page, bbox: bottomLeft(b, size.height), charspan: [0, text.length] }];
    };
    const addCaption = (
      owner: { self_ref: string; children?: RefItem[]; captions?: RefItem[] },
      it: DocItem,
      withList: boolean,
    ) => {
      if (!it.caption) return;
      const capBox: DocItem = { ...it.caption, bbox: it.caption.bbox ?? (it.caption.grid ? undefined : it.bbox) };
      const cap = addText<TextItem>(
        {
          label: 'caption',
          content_layer: 'body',
          prov: prov(capBox, it.caption.text),
          orig: it.caption.text,
          text: it.caption.text,
        },
        owner,
      );
      made.items.pop();
      made.caption = cap.self_ref;
      if (withList) (owner.captions ??= []).push(ref(cap.self_ref));
    };

    for (const it of page.items) {
      made = { items: [] };
      opts.refs?.set(it, made);
      if (it.cls !== 'list_item') lists = [];
      const layer = it.cls === 'page_header' || it.cls === 'page_footer' ? ('furniture' as const) : ('body' as const);
      /** What docling-core's floating items (tables, pictures, forms, key-value regions) share: the body's next `#/<list>/<n>`. */
      const floating = <L extends string>(list: string, n: number, label: L) => ({
        self_ref: `#/${list}/${n}`,
        parent: ref(body.self_ref),
        children: [],
        content_layer: layer,
        label,
        prov: prov(it),
        captions: [],
        references: [],
        footnotes: [],
      });
      switch (it.cls) {
        case 'list_item': {
          const ordered = it.ordered === true;
          // Depth as Markdown shows it: at most one below the lists open now.
          const depth = Math.min(Math.max(0, Math.round(it.level ?? 0)), lists.length);
          lists.length = Math.min(lists.length, depth + 1);
          if (lists.length === depth + 1 && lists[depth]!.ordered !== ordered) lists.length = depth; // another list starts
          if (lists.length === depth) {
            // A nested list belongs to the item above it, as docling nests them.
            const parent: { self_ref: string; children?: RefItem[] } = depth === 0 ? body : lists[depth - 1]!.last;
            const group: UnorderedList = {
              self_ref: `#/groups/${groups.length}`,
              parent: ref(parent.self_ref),
              children: [],
              content_layer: 'body',
              name: 'list',
              label: 'list',
            };
            groups.push(group);
            (parent.children ??= []).push(ref(group.self_ref));
            lists.push({ group, ordered, count: 0, last: undefined as unknown as ListItem });
          }
          const open = lists[depth]!;
          open.count++;
          // Numbering goes on from a printed number ("212." then "213."), as Folio's Markdown counts.
          const num = ordered && it.marker ? numberOfLabel(it.marker) : undefined;
          if (num) open.count = num.n;
          open.last = addText<ListItem>(
            {
              label: 'list_item',
              content_layer: 'body',
              prov: prov(it, it.text),
              orig: it.text,
              text: it.text,
              enumerated: ordered,
              // The label printed on the page ("(4)", "3)", "212.") is docling-core's `marker`;
              // without one, the position, as docling numbers an enumerated list.
              marker: ordered ? (it.marker ?? `${open.count}.`) : '-',
            },
            open.group,
          );
          break;
        }
        case 'title':
          addText<TitleItem>(
            { label: 'title', content_layer: layer, prov: prov(it, it.text), orig: it.text, text: it.text },
            body,
          );
          break;
        case 'section_header':
          addText<SectionHeaderItem>(
            {
              label: 'section_header',
              content_layer: layer,
              prov: prov(it, it.text),
              orig: it.text,
              text: it.text,
              level: Math.min(100, Math.max(1, Math.round(it.level ?? 1))),
            },
            body,
          );
          break;
        case 'code': {
          const language = CODE_LANGUAGES.find((l) => l === it.language) ?? 'unknown';
          const code = addText<CodeItem>(
            {
              label: 'code',
              content_layer: layer,
              prov: prov(it, it.text),
              orig: it.text,
              text: it.text,
              code_language: language,
              captions: [],
            },
            body,
          );
          addCaption(code, it, true);
          break;
        }
        case 'formula': {
          const f = addText<FormulaItem>(
            { label: 'formula', content_layer: layer, prov: prov(it, it.text), orig: it.text, text: it.text },
            body,
          );
          addCaption(f, it, false); // FormulaItem has no `captions` field; the caption is its child
          break;
        }
        case 'table':
        case 'document_index': {
          // A document index as Folio reads it is text; docling's is a table: one cell holds it.
          const rows = it.cls === 'table' ? (it.table ?? []) : [[{ tag: 'fcel' as const, text: it.text }]];
          const t: TableItem = { ...floating('tables', tables.length, it.cls), data: otslToTableData(rows) };
          tables.push(t);
          body.children!.push(ref(t.self_ref));
          madeOther(t.self_ref);
          addCaption(t, it, true);
          break;
        }
        case 'picture':
        case 'chart': {
          const pic: PictureItem = { ...floating('pictures', pictures.length, it.cls), annotations: [] };
          pictures.push(pic);
          body.children!.push(ref(pic.self_ref));
          madeOther(pic.self_ref);
          if (it.imagePath) {
            const bytes = imageHeader(it.imagePath, opts);
            const px = bytes ? pngSize(bytes) : undefined;
            const widthPt = it.bbox ? it.bbox.x1 - it.bbox.x0 : 0;
            pic.image = {
              mimetype: 'image/png',
              dpi: px && widthPt > 0 ? Math.round((72 * px.width) / widthPt) : 72,
              size: px ?? { width: 0, height: 0 },
              uri: it.imagePath,
            };
          }
          if (it.table && it.table.length > 0) {
            pic.annotations!.push({
              kind: 'tabular_chart_data',
              title: it.caption?.text ?? '',
              chart_data: otslToTableData(it.table),
            });
          }
          addCaption(pic, it, true);
          break;
        }
        case 'form':
        case 'key_value_region': {
          const graph = {
            cells: [{ label: 'unspecified' as const, cell_id: 0, text: it.text, orig: it.text }],
            links: [],
          };
          const list = it.cls === 'form' ? formItems : kvItems;
          const key = it.cls === 'form' ? 'form_items' : 'key_value_items';
          const g = { ...floating(key, list.length, it.cls), graph };
          if (it.cls === 'form') formItems.push(g as FormItem);
          else kvItems.push(g as KeyValueItem);
          body.children!.push(ref(g.self_ref));
          madeOther(g.self_ref);
          break;
        }
        default:
          if (it.cls === 'text' && it.parts?.some((p) => p.math)) {
            // Running text with inline math: docling-core's inline group, text and formula
            // items in reading order (as its DocTags `<inline>` element), so the math survives.
            const group: GroupItem = {
              self_ref: `#/groups/${groups.length}`,
              parent: ref(body.self_ref),
              children: [],
              content_layer: layer,
              name: 'group',
              label: 'inline',
            };
            groups.push(group);
            body.children!.push(ref(group.self_ref));
            for (const part of it.parts) {
              if (part.text.length === 0) continue;
              if (part.math)
                addText<FormulaItem>(
                  {
                    label: 'formula',
                    content_layer: layer,
                    prov: prov(it, part.text),
                    orig: part.text,
                    text: part.text,
                  },
                  group,
                );
              else
                addText<TextItem>(
                  { label: 'text', content_layer: layer, prov: prov(it, part.text), orig: part.text, text: part.text },
                  group,
                );
            }
            break;
          }
          // text, caption (on its own), footnote, page_header, page_footer, checkboxes
          addText<TextItem>(
            { label: it.cls, content_layer: layer, prov: prov(it, it.text), orig: it.text, text: it.text },
            body,
          );
      }
    }
  }

  const doc: DoclingDocument = {
    schema_name: 'DoclingDocument',
    version: DOCLING_SCHEMA_VERSION,
    name: opts.name,
    furniture,
    body,
    groups,
    texts,
    pictures,
    tables,
    key_value_items: kvItems,
    form_items: formItems,
    pages: pageItems,
  };
  if (opts.origin) {
    doc.origin = {
      mimetype: opts.origin.mimetype,
      binary_hash: opts.origin.binaryHash,
      filename: opts.origin.filename,
    };
    if (opts.origin.uri) doc.origin.uri = opts.origin.uri;
  }
  return doc;
}
