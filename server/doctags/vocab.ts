/**
 * DocTags vocabulary (docling-core's token names) and the mapping between tag names and Folio's
 * region classes. Shared by the serializer and the parser so both speak exactly the same set.
 */
import type { RegionClass } from '../../common/protocol';
import { isChartKind, type OtslTag } from '../model/items';

/** Leaf elements whose content is text (plus location tokens and, for some, a caption). */
const LEAF_TAGS: Record<string, RegionClass> = {
  title: 'title',
  text: 'text',
  paragraph: 'text',
  reference: 'text',
  handwritten_text: 'text',
  caption: 'caption',
  footnote: 'footnote',
  formula: 'formula',
  list_item: 'list_item',
  code: 'code',
  page_header: 'page_header',
  page_footer: 'page_footer',
  document_index: 'document_index',
  form: 'form',
  key_value_region: 'key_value_region',
  checkbox_selected: 'checkbox_selected',
  checkbox_unselected: 'checkbox_unselected',
};

/** Elements that hold a picture or a table rather than running text. */
const FIGURE_TAGS: Record<string, RegionClass> = {
  picture: 'picture',
  chart: 'chart',
  otsl: 'table',
  table: 'table',
  // A table of contents holds its entries as OTSL rows (title, page), as docling's TableItem
  // labelled document_index does; one with no cells keeps its text.
  document_index: 'document_index',
};

export const LIST_TAGS = new Set(['ordered_list', 'unordered_list']);
export const OTSL_CELL_TAGS = new Set<string>(['fcel', 'ecel', 'lcel', 'ucel', 'xcel', 'ched', 'rhed', 'srow']);
/** Tokens that appear inside elements but are not elements themselves. */
const INNER_TAGS = new Set(['nl', 'smiles', 'inline']);

const SECTION_RE = /^section_header_level_(\d{1,2})$/;

/** The region class an element tag opens, with the section level for headers; undefined when not an element. */
export function classOfTag(name: string): { cls: RegionClass; level?: number } | undefined {
  const m = SECTION_RE.exec(name);
  // Levels 1–6 are the real vocabulary's tokens; deeper levels (docling-core serializes up to 9
  // in older outputs) are clamped so they read as the deepest heading the model can write.
  if (m) return { cls: 'section_header', level: Math.min(6, Math.max(1, Number(m[1]))) };
  const leaf = LEAF_TAGS[name] ?? FIGURE_TAGS[name];
  return leaf ? { cls: leaf } : undefined;
}

export function isFigureTag(name: string): boolean {
  return name in FIGURE_TAGS;
}

/** True when `name` is any DocTags tag name (so `<name>` in the input is markup, not text). */
export function isVocabularyTag(name: string): boolean {
  return (
    name === 'doctag' ||
    name === 'page_break' ||
    LIST_TAGS.has(name) ||
    OTSL_CELL_TAGS.has(name) ||
    INNER_TAGS.has(name) ||
    isChartKind(name) ||
    classOfTag(name) !== undefined
  );
}

export function isOtslTag(name: string): name is OtslTag {
  return OTSL_CELL_TAGS.has(name);
}

/** The tag the serializer writes for an item (the inverse of `classOfTag`, choosing docling's spelling). */
export function tagOfItem(cls: RegionClass, level?: number): string {
  switch (cls) {
    case 'section_header':
      return `section_header_level_${Math.min(6, Math.max(1, Math.round(level ?? 1)))}`;
    case 'table':
      return 'otsl';
    default:
      return cls;
  }
}
