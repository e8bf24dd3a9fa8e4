/**
 * Where a conversion's results go as they come. Its own file so that convertDocument.ts and
 * structuredInput.ts, which both take one, do not import each other.
 */
import type { PageResult } from '../../common/protocol';
import type { PagePartial } from './pagePartial';

export interface ConvertSink {
  /** A finished page, in page order. */
  page(result: PageResult): void;
  /** Called once the page count is known and after each page. */
  progress?(done: number, total: number): void;
  log?(level: 'info' | 'warning' | 'error', message: string): void;
  /**
   * A VLM page's text so far, throttled (server/convert/pagePartial.ts). Only called before that
   * page's `page()`, and never after the signal is aborted. Without it no partials are made.
   */
  partial?(p: PagePartial): void;
}
