/**
 * What the linked view's webview says (view.ts's input part): each message, validated again on
 * arrival (`parseViewMessage`), goes to the part that owns it through one table keyed by its type
 * (pdf.js's `handler.on` shape). Messages that act on the Markdown are dropped when the webview
 * sent them against a document version it had not yet replaced.
 */
import * as vscode from 'vscode';
import { isStale, parseViewMessage, type ViewMessage } from '../../common/viewMessages';
import { messageOf } from '../../common/errorKinds';
import type { RegionEdits } from './regionEdits';
import type { ScrollLink } from './scrollSync';
import type { ViewPanel } from './viewPanel';
import type { ViewState } from './viewState';

type Handlers = { [T in ViewMessage['type']]: (m: Extract<ViewMessage, { type: T }>) => void | Promise<void> };

/** Messages about the view itself: never stale, since they change no Markdown. */
const VIEW_ONLY = new Set<ViewMessage['type']>(['ready', 'painted', 'scrolled', 'convert', 'sharpen']);

export class ViewInput {
  private readonly handlers: Handlers;

  constructor(
    private readonly s: ViewState,
    private readonly panel: ViewPanel,
    scroll: ScrollLink,
    edits: RegionEdits,
  ) {
    this.handlers = {
      ready: (m) => panel.onReady(m.scriptMs),
      painted: (m) => panel.onPainted(m),
      // Scroll positions are not edits: a document version moved on meanwhile does not make them stale.
      scrolled: (m) => scroll.onViewScrolled(m.regionId, m.fraction),
      convert: () => {
        if (s.pdf) void vscode.commands.executeCommand('folio.convertPdf', s.pdf, 'markdown');
      },
      sharpen: (m) => void panel.sharpen(m.pages, m.scale, edits.pdfPassword()),
      reveal: (m) => scroll.reveal(m.regionId, m.focus),
      editRegion: (m) => edits.edit(m.regionId, { bbox: m.bbox, cls: m.cls }),
      reparse: (m) => edits.reparse(m.regionId, { bbox: m.bbox, cls: m.cls }),
      addRegion: (m) => edits.add(m.page, m.bbox, m.cls),
      deleteRegion: (m) => edits.delete(m.regionId),
    };
  }

  onMessage(raw: unknown): void {
    const m = parseViewMessage(raw);
    if (typeof m === 'string') {
      this.s.ctx.output.appendLine(`[warning] preview: ignored a webview message: ${m}`);
      return;
    }
    if (m.uri !== this.s.key) return;
    const handle = this.handlers[m.type] as (m: ViewMessage) => void | Promise<void>;
    if (VIEW_ONLY.has(m.type)) {
      void handle(m);
      return;
    }
    if (isStale(m.version, this.panel.sentVersion)) {
      // The webview acted on a state it had not yet replaced: drop it and let it catch up.
      this.panel.post({
        type: 'status',
        level: 'warning',
        text: 'The document changed meanwhile; that action was dropped. Try again.',
      });
      this.panel.refresh();
      return;
    }
    void (async () => handle(m))().catch((e: unknown) => {
      const msg = messageOf(e);
      this.s.ctx.output.appendLine(`[error] preview (${m.type}): ${msg}`);
      this.panel.post({ type: 'status', level: 'error', text: msg });
    });
  }
}
