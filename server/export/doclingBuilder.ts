/**
 * A DoclingDocument built through docling-core's own API: each method is one of
 * `DoclingDocument.add_*` (docling_core/types/doc/document.py), under its camelCase name, and
 * sets what that method sets — the item's `self_ref` (`#/<list>/<n>`, the next index of its
 * list), `parent`, and a reference in the parent's `children`. The builder knows nothing of
 * Folio's pages; docling.ts turns Folio's page items into these calls, as docling's
 * `readingorder_model.py` turns its page elements into them.
 *
 * The output is JSON, so the order in which fields are set is the order they are written in;
 * each method sets them in one fixed order (that of the DoclingDocument export Folio has always
 * written), whatever the order of its arguments.
 *
 * Where Folio writes less than docling-core's signature allows, the argument is left out:
 * `orig` is always the text, an item has one provenance box, and floating items and groups hang
 * under the body unless a parent is given.
 */
import type {
  CodeItem,
  CodeLanguageLabel,
  ContentLayer,
  DoclingDocument,
  DocumentOrigin,
  FormItem,
  FormulaItem,
  GraphData,
  GroupItem,
  ImageRef,
  InlineGroup,
  KeyValueItem,
  ListItem,
  PageItem,
  PictureItem,
  ProvenanceItem,
  RefItem,
  SectionHeaderItem,
  TableData,
  TableItem,
  TextItem,
  TitleItem,
  UnorderedList,
} from '@docling/docling-core';

/**
 * The version written is the oldest schema the output is checked against (1.3.0, the schema of
 * the `@docling/docling-core` types); the tests check it against 1.3.0 and 1.10.0.
 */
export const DOCLING_SCHEMA_VERSION = '1.3.0';

type TextLike = TitleItem | SectionHeaderItem | ListItem | CodeItem | FormulaItem | TextItem;
type Group = UnorderedList | InlineGroup | GroupItem;

/** Anything an item can hang under: the body, a group, or another item (a caption under its table). */
export interface ParentNode {
  self_ref: string;
  children?: RefItem[];
}

/** What every text-like item is given (docling-core's `text`, `prov`, `parent`, `content_layer`). */
export interface TextArgs {
  text: string;
  prov: ProvenanceItem;
  /** Default: the body. */
  parent?: ParentNode;
  /** Default: `body`. */
  content_layer?: ContentLayer;
}

/** What every floating item (table, picture, form, key-value region) is given. */
export interface FloatingArgs {
  prov: ProvenanceItem;
  /** Default: the body. */
  parent?: ParentNode;
  /** Default: `body`. */
  content_layer?: ContentLayer;
}

export const ref = (self_ref: string): RefItem => ({ $ref: self_ref });

function root(content_layer: ContentLayer): GroupItem {
  return {
    self_ref: `#/${content_layer}`,
    parent: null,
    children: [],
    content_layer,
    name: '_root_',
    label: 'unspecified',
  };
}

export class DoclingBuilder {
  readonly furniture: GroupItem = root('furniture');
  readonly body: GroupItem = root('body');
  readonly groups: Group[] = [];
  readonly texts: TextLike[] = [];
  readonly pictures: PictureItem[] = [];
  readonly tables: TableItem[] = [];
  readonly keyValueItems: KeyValueItem[] = [];
  readonly formItems: FormItem[] = [];
  readonly pages: Record<string, PageItem> = {};

  /** `add_page`: the page's size in points and, when rendered, its image. */
  addPage(page_no: number, size: { width: number; height: number }, image?: ImageRef): PageItem {
    const page: PageItem = { size, page_no };
    if (image) page.image = image;
    this.pages[String(page_no)] = page;
    return page;
  }

  /** `add_text`: running text, a footnote, a page header or footer, a caption on its own, a checkbox. */
  addText(label: TextItem['label'], args: TextArgs): TextItem {
    return this.appendText<TextItem>(label, args, {});
  }

  /** `add_title`. */
  addTitle(args: TextArgs): TitleItem {
    return this.appendText<TitleItem>('title', args, {});
  }

  /** `add_heading`: a section header of `level` (docling-core's `LevelNumber`, 1–100). */
  addHeading(args: TextArgs & { level: number }): SectionHeaderItem {
    return this.appendText<SectionHeaderItem>('section_header', args, { level: args.level });
  }

  /** `add_code`: a code block; its caption goes in its `captions` (addCaption). */
  addCode(args: TextArgs & { code_language: CodeLanguageLabel }): CodeItem {
    return this.appendText<CodeItem>('code', args, { code_language: args.code_language, captions: [] });
  }

  /** `add_formula`: a display formula, or the math part of an inline group. */
  addFormula(args: TextArgs): FormulaItem {
    return this.appendText<FormulaItem>('formula', args, {});
  }

  /** `add_list_group`: a list, under the body or (a nested list) under the list item it belongs to. */
  addListGroup(parent: ParentNode = this.body): UnorderedList {
    return this.appendGroup('list', 'list', parent, 'body') as UnorderedList;
  }

  /** `add_inline_group`: text and formulas of one paragraph, in reading order. */
  addInlineGroup(parent: ParentNode = this.body, content_layer: ContentLayer = 'body'): InlineGroup {
    return this.appendGroup('group', 'inline', parent, content_layer) as InlineGroup;
  }

  /** `add_list_item`: an item of the list group `parent`; `marker` is the label printed before it. */
  addListItem(args: TextArgs & { parent: UnorderedList; enumerated: boolean; marker: string }): ListItem {
    return this.appendText<ListItem>('list_item', args, { enumerated: args.enumerated, marker: args.marker });
  }

  /** `add_table` (also for a document index, label `document_index`). */
  addTable(args: FloatingArgs & { data: TableData; label: 'table' | 'document_index' }): TableItem {
    const table: TableItem = { ...this.floating('tables', this.tables.length, args.label, args), data: args.data };
    return this.appendFloating(this.tables, table, args.parent);
  }

  /** `add_picture` (also for a chart, label `chart`). */
  addPicture(
    args: FloatingArgs & { label: 'picture' | 'chart'; annotations?: PictureItem['annotations']; image?: ImageRef },
  ): PictureItem {
    const floating = this.floating('pictures', this.pictures.length, args.label, args);
    const picture: PictureItem = { ...floating, annotations: args.annotations ?? [] };
    if (args.image) picture.image = args.image;
    return this.appendFloating(this.pictures, picture, args.parent);
  }

  /** `add_key_values`: a key-value region and its graph. */
  addKeyValues(args: FloatingArgs & { graph: GraphData }): KeyValueItem {
    const n = this.keyValueItems.length;
    const item: KeyValueItem = { ...this.floating('key_value_items', n, 'key_value_region', args), graph: args.graph };
    return this.appendFloating(this.keyValueItems, item, args.parent);
  }

  /** `add_form`: a form and its graph. */
  addForm(args: FloatingArgs & { graph: GraphData }): FormItem {
    const item: FormItem = { ...this.floating('form_items', this.formItems.length, 'form', args), graph: args.graph };
    return this.appendFloating(this.formItems, item, args.parent);
  }

  /**
   * A caption of a table, picture, code block or formula, as docling's reading-order model adds
   * one (`_add_caption_or_footnote`: `add_text(label=CAPTION, parent=owner)`, then the owner's
   * `captions` list). A formula has no `captions` field: its caption is only its child.
   */
  addCaption(owner: ParentNode & { captions?: RefItem[] }, args: Omit<TextArgs, 'parent' | 'content_layer'>): TextItem {
    const caption = this.addText('caption', { ...args, parent: owner, content_layer: 'body' });
    owner.captions?.push(ref(caption.self_ref));
    return caption;
  }

  /** The document: docling-core's fields in the order its export writes them. */
  document(name: string, origin?: DocumentOrigin): DoclingDocument {
    const doc: DoclingDocument = {
      schema_name: 'DoclingDocument',
      version: DOCLING_SCHEMA_VERSION,
      name,
      furniture: this.furniture,
      body: this.body,
      groups: this.groups,
      texts: this.texts,
      pictures: this.pictures,
      tables: this.tables,
      key_value_items: this.keyValueItems,
      form_items: this.formItems,
      pages: this.pages,
    };
    if (origin) doc.origin = origin;
    return doc;
  }

  /** What docling-core's `_append_item` does for a text: the next `#/texts/<n>`, under `parent`. */
  private appendText<T extends TextLike>(label: T['label'], args: TextArgs, extra: Partial<T>): T {
    const parent = args.parent ?? this.body;
    const item = {
      self_ref: `#/texts/${this.texts.length}`,
      label,
      content_layer: args.content_layer ?? 'body',
      prov: [args.prov],
      orig: args.text,
      text: args.text,
      ...extra,
      parent: ref(parent.self_ref),
    } as T;
    this.texts.push(item);
    (parent.children ??= []).push(ref(item.self_ref));
    return item;
  }

  private appendGroup(name: string, label: 'list' | 'inline', parent: ParentNode, content_layer: ContentLayer): Group {
    const group: Group = {
      self_ref: `#/groups/${this.groups.length}`,
      parent: ref(parent.self_ref),
      children: [],
      content_layer,
      name,
      label,
    };
    this.groups.push(group);
    (parent.children ??= []).push(ref(group.self_ref));
    return group;
  }

  /** The fields docling-core's floating items share, up to their own (data, graph, annotations). */
  private floating<L extends string>(list: string, n: number, label: L, args: FloatingArgs) {
    return {
      self_ref: `#/${list}/${n}`,
      parent: ref((args.parent ?? this.body).self_ref),
      children: [],
      content_layer: args.content_layer ?? ('body' as ContentLayer),
      label,
      prov: [args.prov],
      captions: [],
      references: [],
      footnotes: [],
    };
  }

  private appendFloating<T extends { self_ref: string }>(list: T[], item: T, parent: ParentNode = this.body): T {
    list.push(item);
    (parent.children ??= []).push(ref(item.self_ref));
    return item;
  }
}
