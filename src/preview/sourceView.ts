/**
 * How the view shows a source born structured (docs/preview.md, "Office and HTML files"): a Word
 * document, workbook, HTML page, Markdown or CSV file as its outline (headings and tables linked to
 * the Markdown, drawn by the webview: media/preview/outlineView.ts); slides (PPTX) as pages when
 * LibreOffice can render them, else as the outline. The view says which in a note line.
 *
 * Slides become pages after the conversion: LibreOffice prints the deck to a temporary PDF
 * (libreOffice.ts, its own process, timeout, cancel), the backend renders that PDF's pages the way
 * it renders any PDF's (page images only: `renderImages`, no OCR), and the images are given to the
 * view's pages (kept in the sidecar; a reload does not run LibreOffice again while they exist).
 * LibreOffice is run only on a local file inside a workspace folder.
 */
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { messageOf } from '../../common/errorKinds';
import { isInside } from '../../common/safeWrite';
import { sourceKindOf } from '../../common/viewMessages';
import type { FolioContext } from '../context';
import { convert } from '../convertClient';
import { findSoffice, withPdfExport } from './libreOffice';
import type { MappedPage } from './regionMap';
import type { LinkedView } from './view';

/** A page image from elsewhere than the conversion: a slide LibreOffice rendered. */
type PageImage = Pick<MappedPage, 'image' | 'imageWidth' | 'imageHeight'>;

const DOCUMENT_NAMES: Record<string, string> = {
  docx: 'Word document',
  xlsx: 'workbook',
  html: 'HTML page',
  htm: 'HTML page',
  md: 'Markdown file',
  markdown: 'Markdown file',
  csv: 'CSV table',
};

/** The view's note line, by case (the end-to-end test reads them). */
export const SOURCE_NOTES = {
  document: (ext: string) =>
    `This ${DOCUMENT_NAMES[ext] ?? 'document'} is shown as its outline: headings and tables, each linked to the Markdown.`,
  converting: 'Slides shown as an outline; LibreOffice renders them as pages once the conversion is done.',
  rendering: 'Slides shown as an outline while LibreOffice renders them as pages…',
  pages: 'Slides shown as pages, rendered by LibreOffice; the outline lists each slide.',
  missing: 'Slides shown as an outline: LibreOffice is not installed (install it to see the slides as pages).',
  outside: 'Slides shown as an outline: the file is not in a workspace folder, so LibreOffice is not run on it.',
  failed: (why: string) => `Slides shown as an outline: LibreOffice could not render them (${why}).`,
  mismatch: (pages: number, slides: number) =>
    `Slides shown as an outline: LibreOffice printed ${pages} pages for ${slides} slides (hidden slides?).`,
} as const;

function extOf(uri: vscode.Uri): string {
  return /\.([a-z]+)$/i.exec(uri.path)?.[1]?.toLowerCase() ?? '';
}

export class SourceViews implements vscode.Disposable {
  /** LibreOffice runs in flight, by view; a new conversion of the view cancels its run. */
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly ctx: FolioContext) {}

  /** A conversion of `source` begins in `v`: the note it opens with (sent with the view's next init). */
  started(v: LinkedView, source: vscode.Uri): void {
    this.running.get(v.key)?.abort();
    const kind = sourceKindOf(source.toString());
    v.showSource(
      kind === 'document'
        ? SOURCE_NOTES.document(extOf(source))
        : kind === 'slides'
          ? SOURCE_NOTES.converting
          : undefined,
      undefined,
      false,
    );
  }

  /** The conversion ended: slides are rendered as pages (unless it was cancelled). */
  finished(v: LinkedView, cancelled: boolean, slides: number): void {
    const source = v.pdfUri;
    if (!source || sourceKindOf(source.toString()) !== 'slides') return;
    if (cancelled) v.showSource(SOURCE_NOTES.failed('the conversion was cancelled'));
    else void this.renderSlides(v, source, slides);
  }

  /** A view restored from its sidecar: its note; slides whose images are gone are rendered again. */
  restored(v: LinkedView, pages: readonly MappedPage[]): void {
    const source = v.pdfUri;
    if (!source) return;
    const kind = sourceKindOf(source.toString());
    if (kind === 'document') v.showSource(SOURCE_NOTES.document(extOf(source)));
    if (kind !== 'slides') return;
    if (pages.length && pages.every((p) => p.image && existsSync(p.image))) v.showSource(SOURCE_NOTES.pages);
    else void this.renderSlides(v, source, pages.length);
  }

  private async renderSlides(v: LinkedView, source: vscode.Uri, slides: number): Promise<void> {
    this.running.get(v.key)?.abort();
    const ac = new AbortController();
    this.running.set(v.key, ac);
    const log = (line: string) => this.ctx.output.appendLine(line);
    const name = source.path.split('/').pop() ?? source.toString();
    try {
      const soffice = await findSoffice();
      if (!soffice) {
        log(`[info] preview: ${name}: LibreOffice (soffice) not found; the slides are shown as an outline`);
        v.showSource(SOURCE_NOTES.missing);
        return;
      }
      if (!(await insideWorkspace(source))) {
        log(`[info] preview: ${name} is not in a workspace folder; LibreOffice is not run on it`);
        v.showSource(SOURCE_NOTES.outside);
        return;
      }
      v.showSource(SOURCE_NOTES.rendering);
      const t0 = Date.now();
      const cts = new vscode.CancellationTokenSource();
      ac.signal.addEventListener('abort', () => cts.cancel(), { once: true });
      let printedAt = 0;
      const pages = await withPdfExport(
        soffice,
        source.fsPath,
        async (pdf) => {
          printedAt = Date.now();
          const summary = await convert(
            this.ctx,
            {
              pdfUri: vscode.Uri.file(pdf),
              options: {
                renderImages: true,
                ocr: 'never',
                engine: 'pipeline',
                scale: this.ctx.config.renderScale,
                keepFurniture: true,
                cacheDir: this.ctx.cacheDir.fsPath,
              },
              shared: false,
            },
            cts.token,
          );
          return summary.pages ?? [];
        },
        ac.signal,
      ).finally(() => cts.dispose());
      if (ac.signal.aborted) return;
      if (pages.length !== slides) {
        v.showSource(SOURCE_NOTES.mismatch(pages.length, slides));
        return;
      }
      const images = new Map<number, PageImage>();
      for (const p of pages)
        if (p.image) images.set(p.page, { image: p.image, imageWidth: p.imageWidth, imageHeight: p.imageHeight });
      log(
        `[info] preview: ${name}: ${images.size} slides rendered as pages (LibreOffice ${printedAt - t0} ms, page images ${Date.now() - printedAt} ms)`,
      );
      v.showSource(SOURCE_NOTES.pages, images);
    } catch (e) {
      if (ac.signal.aborted) return;
      log(`[warning] preview: ${name}: the slides could not be rendered as pages: ${messageOf(e)}`);
      v.showSource(SOURCE_NOTES.failed(messageOf(e)));
    } finally {
      if (this.running.get(v.key) === ac) this.running.delete(v.key);
    }
  }

  dispose(): void {
    for (const ac of this.running.values()) ac.abort();
    this.running.clear();
  }
}

/** A local file inside one of the workspace's folders (links resolved on both sides). */
async function insideWorkspace(source: vscode.Uri): Promise<boolean> {
  if (source.scheme !== 'file') return false;
  const folder = vscode.workspace.getWorkspaceFolder(source);
  if (!folder || folder.uri.scheme !== 'file') return false;
  try {
    return isInside(await realpath(folder.uri.fsPath), await realpath(source.fsPath));
  } catch {
    return false;
  }
}
