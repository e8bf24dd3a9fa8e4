/**
 * Saving picture crops from a rendered page as PNG files in the assets folder. The folder may sit
 * in an untrusted repository: crops are encoded in memory and written with safeWriteFile, which
 * refuses a linked assets folder or a linked file (sharp's `toFile` followed both).
 */
import { basename, dirname, join, relative, sep } from 'node:path';
import type sharpType from 'sharp';
import { fitFileName, isInside, safeWriteFile } from '../../common/safeWrite';
import type { DocItem } from '../model/items';
import type { RenderedPage } from '../pdf/render';

export async function savePictures(
  items: DocItem[],
  img: RenderedPage,
  pdfPath: string,
  pageNo: number,
  assetsDir: string,
  markdownDir: string | undefined,
): Promise<string[]> {
  const warnings: string[] = [];
  const stem = basename(pdfPath)
    .replace(/\.pdf$/i, '')
    .replace(/[^\p{L}\p{N}._-]+/gu, '_');
  let k = 0;
  for (const it of items) {
    if (it.cls !== 'picture' || !it.bbox) continue;
    k++;
    const left = Math.max(0, Math.floor(it.bbox.x0 * img.scale));
    const top = Math.max(0, Math.floor(it.bbox.y0 * img.scale));
    const width = Math.min(img.width - left, Math.ceil((it.bbox.x1 - it.bbox.x0) * img.scale));
    const height = Math.min(img.height - top, Math.ceil((it.bbox.y1 - it.bbox.y0) * img.scale));
    if (width < 2 || height < 2) continue;
    const file = join(assetsDir, fitFileName(`${stem}-p${pageNo}-${k}`, '.png'));
    try {
      // sharp (native) is loaded by the first picture, not with the page worker (CLI start-up, issue 22).
      const sharp: typeof sharpType = (await import('sharp')).default;
      const png = await sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength), {
        raw: { width: img.width, height: img.height, channels: 4 },
      })
        .extract({ left, top, width, height })
        .png()
        .toBuffer();
      // Folders from the Markdown folder down are checked too, when the assets sit below it.
      const root = markdownDir && isInside(markdownDir, assetsDir) ? markdownDir : dirname(assetsDir);
      await safeWriteFile(file, png, { root });
      it.imagePath = relative(markdownDir ?? join(assetsDir, '..'), file)
        .split(sep)
        .join('/');
    } catch (e) {
      warnings.push(`picture ${k} could not be saved: ${(e as Error).message}`);
    }
  }
  return warnings;
}
