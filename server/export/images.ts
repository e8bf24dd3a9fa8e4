/**
 * Pictures in the output, as Docling offers them: linked files (the default: crops saved in
 * `<name>.assets/`, linked relative to the output), embedded (`data:image/png;base64,…` in the
 * Markdown and in the DoclingDocument's image references; no files left) or none (the
 * placeholder `<!-- image -->`; no crops are saved at all).
 */
import type { ExportPage } from './pages';
import { readPictureFile, type PictureFolders } from './pictureFile';
import { pageToMarkdown } from '../doctags/markdown';

export type ImageMode = 'link' | 'embed' | 'none';
export const IMAGE_MODES: readonly ImageMode[] = ['link', 'embed', 'none'];

/**
 * Replaces each picture's file by a data URI of its bytes; returns warnings for files that could
 * not be read or were refused (server/export/pictureFile.ts: inside the pictures folder, a
 * regular file, size-capped).
 */
export function embedPictures(pages: ExportPage[], folders: PictureFolders): string[] {
  const warnings: string[] = [];
  for (const page of pages) {
    for (const it of page.items) {
      if (!it.imagePath || it.imagePath.startsWith('data:')) continue;
      try {
        it.imagePath = `data:image/png;base64,${readPictureFile(it.imagePath, folders).toString('base64')}`;
      } catch (e) {
        warnings.push(
          `page ${page.page}: picture ${it.imagePath} could not be embedded (${(e as Error).message}); left as a placeholder`,
        );
        delete it.imagePath;
      }
    }
  }
  return warnings;
}

export function dropPictures(pages: ExportPage[]): void {
  for (const page of pages) for (const it of page.items) delete it.imagePath;
}

/** The document's Markdown from export pages, written exactly as the `.md` is (pages joined by a blank line). */
export function pagesToMarkdown(pages: readonly ExportPage[], keepFurniture: boolean): string {
  const parts = pages.map((p) => pageToMarkdown(p.items, { keepFurniture }).markdown).filter((m) => m.length > 0);
  return parts.length > 0 ? parts.join('\n\n') + '\n' : '';
}
