/**
 * The page's pixels at the output scale, after its text is read: the page image the preview
 * shows (kept in the cache folder, a cached PNG reused) and the crops of its pictures.
 */
import { join } from 'node:path';
import { renderPage } from '../pdf/render';
import { readCachedPng, writeCacheEntry } from '../util/cache';
import { savePictures } from './pictures';
import { laidOut, type PageWork } from './state';

/** Page step: the page image in the cache folder (`renderImages`). */
export async function pageImage(w: PageWork): Promise<void> {
  const { doc, opts, pageNo } = w;
  if (!opts.renderImages || w.tooLarge) return;
  const file = join(opts.cacheDir, `${doc.fileKey}-p${pageNo}-s${opts.scale}.png`);
  const needPixels = opts.assetsDir !== undefined && laidOut(w).items.some((i) => i.cls === 'picture');
  // A hit is trusted only when it is a plain file holding a PNG (server/util/cache).
  const cached = needPixels ? undefined : readCachedPng(file);
  if (cached) {
    w.pageImage = { path: file, width: cached.width, height: cached.height };
  } else {
    const image = (w.image = await renderPage(doc.doc, w.page, opts.scale, true));
    await writeCacheEntry(opts.cacheDir, file, image.png!);
    w.pageImage = { path: file, width: image.width, height: image.height };
  }
}

/** Page step: the pictures' crops saved in the assets folder (from the page image when rendered). */
export async function pictures(w: PageWork): Promise<void> {
  const { doc, opts, pageNo } = w;
  const items = laidOut(w).items;
  if (!opts.assetsDir || w.tooLarge || !items.some((i) => i.cls === 'picture')) return;
  w.image ??= await renderPage(doc.doc, w.page, opts.scale || 2, false);
  w.warnings.push(...(await savePictures(items, w.image, doc.path, pageNo, opts.assetsDir, opts.markdownDir)));
}
