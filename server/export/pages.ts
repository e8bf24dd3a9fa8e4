/**
 * The input of every exporter (DoclingDocument, chunks, Markdown with embedded pictures): the
 * converted pages as document-model items with exact boxes. `PageResult` carries the page's
 * DocTags and its regions (boxes in points, one per item, same order); the items come back from
 * the DocTags with the one parser, so an export says exactly what the Markdown says.
 */
import type { PageResult } from '../../common/protocol';
import { type DocItem, fromGrid } from '../model/items';
import { parseDocTags } from '../doctags/parse';
import { picturePathProblem } from './pictureFile';

export interface ExportPage {
  /** 1-based page number. */
  page: number;
  /** Page size in points (0 when the page failed). */
  width: number;
  height: number;
  /** Items in reading order; `bbox` always set (points, top-left origin). */
  items: DocItem[];
  /** Rendered page image, when the conversion rendered one. */
  image?: { path: string; width: number; height: number };
}

export function exportPageFromResult(p: PageResult): ExportPage {
  const parsed = p.doctags ? (parseDocTags(p.doctags)[0]?.items ?? []) : [];
  const size = { width: p.width || 1, height: p.height || 1 };
  const items = parsed.map((it, i): DocItem => {
    const region = p.regions[i];
    const same = region !== undefined && region.cls === it.cls;
    const out: DocItem = {
      ...it,
      bbox: same ? region.bbox : it.grid ? fromGrid(it.grid, size) : { x0: 0, y0: 0, x1: 0, y1: 0 },
    };
    if (same) out.id = region.id;
    // The picture's file comes from the region (data), never from the Markdown text, where PDF
    // text could have written a link of its own (issue 21 item 2). It is read later only through
    // pictureFile.ts's checks.
    if (
      (it.cls === 'picture' || it.cls === 'chart') &&
      same &&
      region.imagePath &&
      !picturePathProblem(region.imagePath)
    )
      out.imagePath = region.imagePath;
    return out;
  });
  const page: ExportPage = { page: p.page, width: p.width, height: p.height, items };
  if (p.image && p.imageWidth && p.imageHeight)
    page.image = { path: p.image, width: p.imageWidth, height: p.imageHeight };
  return page;
}
