/**
 * The page the host sends to the view for one mapped page (`PageView`, common/viewMessages.ts):
 * its regions in reading order, and its Markdown blocks cut from the `.md` text by the regions'
 * ranges now (text the user typed between two regions becomes a block owned by no region).
 *
 * Pure data, no `vscode` import: the linked view's panel (viewPanel.ts) sends what this returns, and
 * test/preview/sidecarViewSchema.test.ts checks that every sidecar the host accepts gives pages
 * the webview accepts through this same function.
 */
import type { MarkdownBlock, PageView } from '../../common/viewMessages';
import type { MappedPage } from './regionMap';

/** The page image as the view will load it (resolved by the host: webview URIs, the inline data URL). */
export interface PageImage {
  imageSrc?: string;
  imageData?: string;
  imageWidth?: number;
  imageHeight?: number;
}

/**
 * `text`: the `.md` as it is now (a region's block is its range of it); undefined when the
 * document is not open (each linked region then shows the Markdown it was last written with).
 */
export function pageViewOf(p: MappedPage, text: string | undefined, image: PageImage = {}): PageView {
  const regions = [...p.regions].sort((a, b) => a.order - b.order);
  const blocks: MarkdownBlock[] = [];
  const linked = regions.filter((r) => r.range).sort((a, b) => a.range!.start - b.range!.start);
  let prevEnd: number | undefined;
  for (const r of linked) {
    const rng = r.range!;
    if (text !== undefined && prevEnd !== undefined && rng.start > prevEnd) {
      // Text the user added between two regions: shown, but owned by no region.
      const gap = text.slice(prevEnd, rng.start);
      if (gap.trim()) blocks.push({ markdown: gap.trim() });
    }
    blocks.push({ regionId: r.id, markdown: text !== undefined ? text.slice(rng.start, rng.end) : r.text });
    prevEnd = rng.end;
  }
  return {
    page: p.page,
    width: p.width,
    height: p.height,
    imageSrc: image.imageSrc,
    ...(image.imageData ? { imageData: image.imageData } : {}),
    imageWidth: image.imageWidth ?? p.imageWidth,
    imageHeight: image.imageHeight ?? p.imageHeight,
    regions: regions.map((r) => ({
      id: r.id,
      cls: r.cls,
      level: r.level,
      bbox: r.bbox,
      grid: r.grid,
      order: r.order,
      linked: !!r.range,
    })),
    blocks,
    ocr: p.ocr,
    warnings: p.warnings,
    error: p.error,
  };
}
