/**
 * Review comments of Excel and PowerPoint files, written as Docling writes them into its Markdown:
 * one paragraph each, `[author: Name (JS), time: 2026-06-18T17:15:52.310]: text`, after the
 * sheet's or the slide's content. (Word comments stay out, as Docling leaves them out.)
 */
import type { DocItem } from '../model/items';
import { tidy } from './text';

/**
 * A timestamp as Docling prints a parsed one (Python's `isoformat(timespec="milliseconds")`):
 * fractions cut or padded to milliseconds, `Z` as `+00:00`. Anything else is kept as written.
 */
export function commentTime(raw: string, millis: boolean): string {
  if (!millis) return raw;
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?$/.exec(raw.trim());
  if (!m) return raw;
  const tz = m[3] === 'Z' ? '+00:00' : (m[3] ?? '');
  return `${m[1]}.${(m[2] ?? '').padEnd(3, '0').slice(0, 3)}${tz}`;
}

/** One comment as a text item, or undefined when it has no text. */
export function commentItem(author: string, time: string, text: string): DocItem | undefined {
  const body = tidy(text);
  if (!body) return undefined;
  const meta = [author ? `author: ${author}` : '', time ? `time: ${time}` : ''].filter(Boolean).join(', ');
  return { cls: 'text', text: meta ? `[${meta}]: ${body}` : body };
}
