/**
 * Turns a page's items into the protocol's `PageResult`. Every engine goes through the same
 * path: items → DocTags (serializer) → items (parser) → Markdown (the one converter). For the
 * pipeline this round trip looks redundant, but it guarantees that what the user gets from the
 * pipeline is exactly what the same DocTags would give from the VLM, and the DocTags shown in
 * the preview are the ones the Markdown came from.
 */
import type { EngineName, ErrorKind, PageResult, Region } from '../../common/protocol';
import { type DocItem, fromGrid, toGrid } from '../model/items';
import { serializePage } from '../doctags/serialize';
import { parseDocTags } from '../doctags/parse';
import { pageToMarkdown } from '../doctags/markdown';
import { joinPageMarkdown } from './pageJoin';

export interface PageInput {
  page: number;
  width: number;
  height: number;
  engine: EngineName;
  /** Items from the engine; when `doctags` is given instead (the VLM), they are parsed from it. */
  items?: DocItem[];
  doctags?: string;
  keepFurniture: boolean;
  ocr: boolean;
  rotation?: number;
  provider?: string;
  image?: { path: string; width: number; height: number };
  warnings: string[];
}

export function buildPageResult(input: PageInput): PageResult {
  const size = { width: input.width, height: input.height };
  const doctags = input.doctags ?? serializePage(input.items ?? []);
  const parsed = parseDocTags(doctags)[0]?.items ?? [];
  // The pipeline knows exact boxes; the parser only sees the grid. Reattach them by position
  // when the round trip kept the items one to one (it does unless an item wrote nothing).
  const source = input.items;
  const sameShape =
    source !== undefined && source.length === parsed.length && source.every((s, i) => s.cls === parsed[i].cls);
  // DocTags has no place for a picture's file, so the saved crop's path is carried over the same way.
  const items = parsed.map((it, i) =>
    sameShape ? { ...it, bbox: source[i].bbox, id: source[i].id, imagePath: source[i].imagePath } : it,
  );
  const { markdown, ranges } = pageToMarkdown(items, { keepFurniture: input.keepFurniture });
  const regions: Region[] = items.map((it, i) => {
    const grid = it.grid ?? (it.bbox ? toGrid(it.bbox, size) : ([0, 0, 0, 0] as [number, number, number, number]));
    const region: Region = {
      id: it.id ?? `p${input.page}-r${i}`,
      cls: it.cls,
      bbox: it.bbox ?? fromGrid(grid, size),
      grid,
      order: i,
    };
    if (it.level !== undefined) region.level = it.level;
    const r = ranges[i];
    if (r) region.mdRange = r;
    if (it.imagePath && (it.cls === 'picture' || it.cls === 'chart')) region.imagePath = it.imagePath;
    return region;
  });
  const result: PageResult = {
    page: input.page,
    width: input.width,
    height: input.height,
    doctags,
    markdown,
    regions,
    engine: input.engine,
    ocr: input.ocr,
    warnings: input.warnings,
  };
  if (input.rotation) result.rotation = input.rotation;
  if (input.provider) result.provider = input.provider;
  if (input.image) {
    result.image = input.image.path;
    result.imageWidth = input.image.width;
    result.imageHeight = input.image.height;
  }
  return result;
}

/** A page that could not be converted: empty content and the reason. */
export function failedPageResult(page: number, engine: EngineName, message: string, kind: ErrorKind): PageResult {
  return {
    page,
    width: 0,
    height: 0,
    doctags: '',
    markdown: '',
    regions: [],
    engine,
    ocr: false,
    warnings: [],
    error: message,
    errorKind: kind,
  };
}

/** Joins page Markdown the way the .md file is written: non-empty pages separated by a blank line. */
export function joinPages(pages: readonly PageResult[]): string {
  // A paragraph broken by the page break is joined again (pageJoin.ts).
  return joinPageMarkdown(pages.map((p) => p.markdown));
}

/** Whole-document DocTags of the pages given. */
export function joinDocTags(pages: readonly PageResult[]): string {
  return `<doctag>${pages.map((p) => p.doctags).join('<page_break>')}</doctag>`;
}
