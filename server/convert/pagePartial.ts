/**
 * A page's text while the VLM is still writing it, turned into throttled `PagePartial`s for the
 * sink (server/main.ts forwards them as `folio/pagePartial`). The engine calls `push` with the
 * whole answer so far each time tokens arrive — possibly hundreds of times a second from a fast
 * server — and at most one partial per `intervalMs` leaves: the first at once (the user sees the
 * page start), later ones on a timer carrying the newest text. `close()` (called before the page's
 * final result is handed to the sink) and an aborted signal end it: nothing is sent afterwards, so
 * a partial never follows its page's result.
 */
import { PAGE_PARTIAL_INTERVAL_MS, type EngineName } from '../../common/protocol';
import { parseDocTags } from '../doctags/parse';
import { pageToMarkdown } from '../doctags/markdown';

export interface PagePartial {
  page: number;
  /** 1, 2, 3… within the page. */
  seq: number;
  doctags: string;
  markdown: string;
  engine: EngineName;
}

/**
 * DocTags written so far → Markdown. The parser is tolerant of a cut stream (an unclosed element
 * keeps its text, a cut `<loc_` or tag name is dropped), so each prefix converts to a prefix-like
 * page; the wrapper and end token are stripped the way the engines strip the final answer.
 */
export function partialPage(text: string, keepFurniture = false): { doctags: string; markdown: string } {
  // A tag cut by the stream (`<loc_4`, `</doc`) is left for the next partial, so the DocTags
  // only grow and stay a prefix of the final page's.
  const doctags = text
    .replace(/<[^<>]*$/, '')
    .replace(/<\|end_of_text\|>/g, '')
    .replace(/^\s*<doctag>/, '')
    .replace(/<\/doctag>\s*$/, '')
    .trim();
  const items = parseDocTags(doctags)[0]?.items ?? [];
  return { doctags, markdown: pageToMarkdown(items, { keepFurniture }).markdown };
}

export interface PartialStream {
  /** The answer so far (the whole text, not a delta: a retried request starts again from empty). */
  push(soFar: string): void;
  /** No partial after this (the final result or a failure is next). Idempotent. */
  close(): void;
  /** Partials sent so far. */
  readonly sent: number;
}

export function pagePartialStream(
  page: number,
  engine: EngineName,
  emit: (p: PagePartial) => void,
  signal: AbortSignal,
  opts: { intervalMs?: number; keepFurniture?: boolean } = {},
): PartialStream {
  const interval = opts.intervalMs ?? PAGE_PARTIAL_INTERVAL_MS;
  let closed = signal.aborted;
  let seq = 0;
  let lastAt = -Infinity;
  let lastDocTags: string | undefined;
  let pending: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const send = (text: string) => {
    pending = undefined;
    if (closed || signal.aborted) return;
    const { doctags, markdown } = partialPage(text, opts.keepFurniture);
    // Nothing to show yet (the role chunk, a lone `<doctag>`), or nothing new since the last one.
    if (!doctags || doctags === lastDocTags) return;
    lastDocTags = doctags;
    lastAt = Date.now();
    emit({ page, seq: ++seq, doctags, markdown, engine });
  };
  const close = () => {
    closed = true;
    pending = undefined;
    clearTimeout(timer);
    timer = undefined;
    signal.removeEventListener('abort', close);
  };
  signal.addEventListener('abort', close, { once: true });
  return {
    push(soFar) {
      if (closed) return;
      const wait = lastAt + interval - Date.now();
      if (wait <= 0 && timer === undefined) {
        send(soFar);
        return;
      }
      pending = soFar;
      timer ??= setTimeout(
        () => {
          timer = undefined;
          if (pending !== undefined) send(pending);
        },
        Math.max(0, wait),
      );
    },
    close,
    get sent() {
      return seq;
    },
  };
}
