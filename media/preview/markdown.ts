/**
 * A small Markdown renderer for the preview that builds DOM nodes, never HTML strings: every
 * character of PDF-derived text goes through `textContent` / text nodes, so `<script>` or
 * `<img onerror>` in a PDF is shown, never run. It covers what Folio writes: headings, paragraphs,
 * lists, fenced code, `$$` formulas (typeset by KaTeX into DOM nodes, whose inline styles are set
 * through CSSOM and so pass the webview's CSP), pipe tables, images, and inline emphasis/code/links.
 *
 * The work per block is bounded (markdownLimits.ts): the block is cut at 64 KB, the inline
 * pattern is linear, and formulas are typeset by KaTeX only within a per-block budget and only
 * when they come near the screen (an IntersectionObserver): a page off screen, or the Markdown
 * pane while hidden, holds its formulas as TeX text and costs no KaTeX time.
 */
import katex from 'katex';
import { capBlock, FormulaBudget, INLINE_PATTERN, katexOptions, MARKDOWN_LIMITS } from './markdownLimits';

export interface RenderContext {
  /** Draws a picture block (the preview crops it from the page image). */
  picture(alt: string): HTMLElement;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Formulas the block being rendered may still typeset (a fresh budget per `renderMarkdown`). */
let budget = new FormulaBudget();

/** Renders one block of Markdown (one region's text) into a container. */
export function renderMarkdown(full: string, ctx: RenderContext): DocumentFragment {
  budget = new FormulaBudget();
  const { text: md, omitted } = capBlock(full);
  const out = renderLines(md, ctx);
  if (omitted > 0)
    out.append(
      el(
        'p',
        'md-truncated',
        `(truncated: ${omitted} more characters of this block are in the .md; the preview shows ${MARKDOWN_LIMITS.blockChars / 1024} KB of one block)`,
      ),
    );
  return out;
}

function renderLines(md: string, ctx: RenderContext): DocumentFragment {
  const out = document.createDocumentFragment();
  const lines = md.replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  let list: HTMLElement | undefined;
  const endList = () => (list = undefined);
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = /^(```+|~~~+)\s*([\w+-]*)\s*$/.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.startsWith(fence[1]!)) body.push(lines[i++]!);
      i++;
      const pre = el('pre', 'md-code');
      const code = el('code', undefined, body.join('\n'));
      if (fence[2]) code.dataset.lang = fence[2];
      pre.append(code);
      out.append(pre);
      endList();
      continue;
    }
    if (line.trim().startsWith('$$')) {
      const body: string[] = [line.trim().slice(2)];
      let closed = body[0]!.endsWith('$$') && body[0]!.length >= 2;
      if (closed) body[0] = body[0]!.slice(0, -2);
      i++;
      while (!closed && i < lines.length) {
        const l = lines[i++]!;
        if (l.trim().endsWith('$$')) {
          body.push(l.trim().slice(0, -2));
          closed = true;
        } else body.push(l);
      }
      out.append(formula(body.join('\n').trim(), true));
      endList();
      continue;
    }
    if (/^\s*<!--.*-->\s*$/.test(line)) {
      // Docling's `<!-- image -->` / `<!-- formula-not-decoded -->` placeholders.
      if (/image/.test(line)) out.append(ctx.picture('image'));
      else out.append(el('p', 'md-placeholder', line.trim()));
      i++;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const h = el(`h${heading[1]!.length}` as 'h1');
      inline(h, heading[2]!);
      out.append(h);
      endList();
      i++;
      continue;
    }
    const item = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      const ordered = /\d/.test(item[2]!);
      if (!list || (list.tagName === 'OL') !== ordered) {
        list = el(ordered ? 'ol' : 'ul');
        out.append(list);
      }
      const li = el('li');
      li.style.marginLeft = `${Math.min(8, Math.floor(item[1]!.length / 2)) * 1.2}em`;
      inline(li, item[3]!);
      list.append(li);
      i++;
      continue;
    }
    if (/^\s*\|.*\|\s*$/.test(line)) {
      const rows: string[] = [];
      while (i < lines.length && /^\s*\|.*\|\s*$/.test(lines[i]!)) rows.push(lines[i++]!);
      out.append(table(rows));
      endList();
      continue;
    }
    const image = /^\s*!\[([^\]]*)\]\(([^)]*)\)\s*$/.exec(line);
    if (image) {
      out.append(ctx.picture(image[1] ?? ''));
      i++;
      continue;
    }
    if (line.trim() === '') {
      endList();
      i++;
      continue;
    }
    // Paragraph: consecutive plain lines.
    const para: string[] = [];
    while (
      i < lines.length &&
      lines[i]!.trim() !== '' &&
      !/^(#{1,6}\s|```|~~~|\s*\$\$|\s*[-*+]\s|\s*\d+[.)]\s|\s*\|)/.test(lines[i]!)
    ) {
      para.push(lines[i++]!);
    }
    if (para.length === 0) para.push(lines[i++]!);
    const p = el('p');
    inline(p, para.join(' '));
    out.append(p);
    endList();
  }
  return out;
}

function table(rows: string[]): HTMLElement {
  const cells = (r: string) =>
    r
      .trim()
      .replace(/^\||\|$/g, '')
      .split(/(?<!\\)\|/)
      .map((c) => c.trim().replace(/\\\|/g, '|'));
  const t = el('table', 'md-table');
  const isRule = (r: string) => /^\s*\|?(\s*:?-{2,}:?\s*\|)+\s*:?-*:?\s*\|?\s*$/.test(r);
  const body = el('tbody');
  rows.forEach((r, idx) => {
    if (isRule(r)) return;
    const tr = el('tr');
    const header = idx === 0 && rows.length > 1 && isRule(rows[1]!);
    for (const c of cells(r)) {
      const td = el(header ? 'th' : 'td');
      inline(td, c);
      tr.append(td);
    }
    body.append(tr);
  });
  t.append(body);
  return t;
}

function formula(tex: string, display: boolean): HTMLElement {
  const holder = el(display ? 'div' : 'span', display ? 'md-formula' : 'md-formula-inline');
  if (!budget.take(tex)) {
    // Too long (or too many in this block) to typeset in a moment: shown as its TeX.
    holder.classList.add('md-formula-raw');
    holder.title = 'Not typeset: too long for the preview';
    holder.append(el('code', undefined, tex));
    return holder;
  }
  holder.textContent = tex;
  typesetWhenShown(holder, tex, display);
  return holder;
}

function typeset(holder: HTMLElement, tex: string, display: boolean): void {
  try {
    // `trust: false` keeps \href / \url / \htmlData from producing links or attributes.
    holder.textContent = '';
    katex.render(tex, holder, katexOptions(display));
  } catch {
    holder.textContent = tex;
  }
}

/** Formulas waiting to come near the screen, and the observer that watches them. */
const waiting = new Map<Element, { tex: string; display: boolean }>();
let observer: IntersectionObserver | undefined;
let registered = 0;

/**
 * Typesets the formula when it comes within a screen or so of the view; one in a hidden pane or
 * a far page waits. Holders of re-rendered pages leave the document: they are dropped now and
 * then, so the observer does not keep them.
 */
function typesetWhenShown(holder: HTMLElement, tex: string, display: boolean): void {
  if (typeof IntersectionObserver === 'undefined') {
    typeset(holder, tex, display);
    return;
  }
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) continue;
        const job = waiting.get(e.target);
        observer!.unobserve(e.target);
        waiting.delete(e.target);
        if (job) typeset(e.target as HTMLElement, job.tex, job.display);
      }
    },
    { rootMargin: '1000px 0px' },
  );
  if (++registered % 1000 === 0)
    for (const h of [...waiting.keys()])
      if (!h.isConnected) {
        observer.unobserve(h);
        waiting.delete(h);
      }
  waiting.set(holder, { tex, display });
  observer.observe(holder);
}

/** Inline Markdown: `code`, $math$, **bold**, *italic* / _italic_, [text](link) (shown as text). */
export function inline(parent: HTMLElement, text: string): void {
  // A copy: `inline` recurses (bold, italic, link text), and each level needs its own lastIndex.
  const re = new RegExp(INLINE_PATTERN);
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) parent.append(document.createTextNode(unescapeMd(text.slice(last, m.index))));
    if (m[2] !== undefined) parent.append(el('code', undefined, m[2]));
    else if (m[3] !== undefined) parent.append(formula(m[3], false));
    else if (m[4] !== undefined || m[5] !== undefined) {
      const b = el('strong');
      inline(b, (m[4] ?? m[5])!);
      parent.append(b);
    } else if (m[6] !== undefined || m[7] !== undefined) {
      const it = el('em');
      inline(it, (m[6] ?? m[7])!);
      parent.append(it);
    } else if (m[8] !== undefined) {
      // Links are shown, not followed: the target is in the title for the curious.
      const a = el('span', 'md-link');
      a.title = m[9] ?? '';
      inline(a, m[8]);
      parent.append(a);
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) parent.append(document.createTextNode(unescapeMd(text.slice(last))));
}

/** Markdown backslash escapes (`\*`, `\_`, `\#`, `\<`) shown as the character they protect. */
function unescapeMd(s: string): string {
  return decodeEntities(s.replace(/\\([\\`*_{}[\]()#+\-.!|<>&$~])/g, '$1'));
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: '\u00a0' };

/**
 * Character references as Markdown renders them (`&lt;` shows `<`). The result only ever becomes
 * a text node, so decoding cannot create markup.
 */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (m, e: string) => {
    if (e[0] === '#') {
      const cp = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
    }
    return NAMED[e.toLowerCase()] ?? m;
  });
}
