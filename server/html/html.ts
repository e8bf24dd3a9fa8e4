/**
 * HTML → Folio's items through parse5 (the WHATWG parser from npm): headings (`h1` the title,
 * `h2` a level-1 section…), paragraphs, lists with their start and nesting, tables with rowspan
 * and colspan, pictures with their alt text or figure caption, code with its language, links as
 * their text. Nothing is executed or fetched: scripts, styles, templates, frames and objects are
 * dropped unread; a picture is saved only when it is inline data (`data:image/png;base64,…`),
 * never from a URL or a local path the page names.
 */
import { parse } from 'parse5';
import type { DocItem, OtslCell } from '../model/items';
import { tidy } from '../office/text';
import { LETTER, type ReadOptions, type StructuredDocument } from '../office/types';

interface Node {
  nodeName: string;
  tagName?: string;
  value?: string;
  attrs?: { name: string; value: string }[];
  childNodes?: Node[];
  content?: Node;
}

const SKIP = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'head',
  'iframe',
  'object',
  'embed',
  'svg',
  'math',
  'canvas',
  'video',
  'audio',
  'select',
  'button',
  'input',
  'textarea',
  'link',
  'meta',
  'base',
]);
const INLINE = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'cite',
  'code',
  'data',
  'dfn',
  'em',
  'font',
  'i',
  'kbd',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'tt',
  'u',
  'var',
  'wbr',
  'del',
  'ins',
  'label',
  'strike',
  'big',
  'nobr',
]);

const attr = (n: Node, name: string) => n.attrs?.find((a) => a.name === name)?.value;

function textContent(n: Node): string {
  if (n.nodeName === '#text') return n.value ?? '';
  if (n.tagName && SKIP.has(n.tagName)) return '';
  if (n.tagName === 'br') return ' ';
  const inner = (n.childNodes ?? []).map(textContent).join('');
  return n.tagName && !INLINE.has(n.tagName) ? ` ${inner} ` : inner;
}

/**
 * A table cell's text: its words, with a list inside it written item by item with its markers
 * (`- Pond - Marsh`, `1. Fly 2. Nest`), as Word cells are and as Docling writes such a cell.
 */
function cellText(n: Node): string {
  if (n.tagName === 'ul' || n.tagName === 'ol') {
    let k = Number(attr(n, 'start') ?? 1);
    if (!Number.isFinite(k)) k = 1;
    const parts: string[] = [];
    for (const li of n.childNodes ?? []) {
      if (li.tagName !== 'li') continue;
      const text = tidy((li.childNodes ?? []).map(cellText).join(''));
      parts.push(`${n.tagName === 'ol' ? `${k++}.` : '-'} ${text}`);
    }
    return ` ${parts.join(' ')} `;
  }
  if (n.nodeName === '#text' || !n.childNodes?.length || (n.tagName && SKIP.has(n.tagName))) return textContent(n);
  const inner = n.childNodes.map(cellText).join('');
  return n.tagName && !INLINE.has(n.tagName) ? ` ${inner} ` : inner;
}

/** The first heading outside any table, in document order (Docling's start of the body). */
function firstHeading(n: Node, inTable = false): Node | undefined {
  if (n.tagName && (SKIP.has(n.tagName) || attr(n, 'hidden') !== undefined)) return undefined;
  if (!inTable && n.tagName && /^h[1-6]$/.test(n.tagName)) return n;
  for (const c of n.childNodes ?? []) {
    const h = firstHeading(c, inTable || n.tagName === 'table');
    if (h) return h;
  }
  return undefined;
}

/**
 * Where an item goes: the body, or furniture (`page_header` before the body starts, `page_footer`
 * inside a `<footer>`), which Markdown leaves out unless asked to keep it (--keep-furniture).
 */
type Layer = 'body' | 'page_header' | 'page_footer';

/** Every word of an item, for its furniture form (a table's cells, a picture's alt text). */
function wordsOf(it: DocItem): string {
  if (it.table) return tidy(it.table.flatMap((r) => r.map((c) => c.text)).join(' '));
  return tidy([it.text, it.caption?.text ?? ''].join(' '));
}

class HtmlReader {
  readonly items: DocItem[] = [];
  private buffer = '';
  private pictures = 0;
  private layer: Layer;
  /** Whether the body's first heading has been passed. */
  private started = false;

  /**
   * `bodyStart`: the first heading outside a table. As Docling's HTML backend does (its
   * `infer_furniture`, on by default), what comes before it is the page's chrome (site banner,
   * navigation, logo) and becomes furniture; a page with no heading is all body.
   */
  constructor(
    private readonly opts: ReadOptions,
    private readonly bodyStart?: Node,
  ) {
    this.layer = bodyStart ? 'page_header' : 'body';
  }

  /** Adds an item to the body, or its words as furniture of the current layer. */
  private push(it: DocItem): void {
    if (this.layer === 'body') {
      this.items.push(it);
      return;
    }
    const text = wordsOf(it);
    if (text) this.items.push({ cls: this.layer, text });
  }

  private flush(): void {
    const text = tidy(this.buffer);
    this.buffer = '';
    if (text) this.push({ cls: 'text', text });
  }

  block(n: Node, listDepth = 0): void {
    if (n.nodeName === '#text') {
      this.buffer += n.value ?? '';
      return;
    }
    const tag = n.tagName;
    if (!tag) {
      for (const c of n.childNodes ?? []) this.block(c, listDepth);
      return;
    }
    if (SKIP.has(tag) || attr(n, 'hidden') !== undefined) return;
    if (tag === 'br') {
      this.buffer += ' ';
      return;
    }
    if (tag === 'img') {
      this.flush();
      this.push(this.picture(n));
      return;
    }
    if (INLINE.has(tag)) {
      if (
        (n.childNodes ?? []).some(
          (c) => c.tagName === 'img' || (c.tagName && !INLINE.has(c.tagName) && c.tagName !== 'br'),
        )
      )
        for (const c of n.childNodes ?? []) this.block(c, listDepth);
      else this.buffer += textContent(n);
      return;
    }
    this.flush();
    const m = /^h([1-6])$/.exec(tag);
    if (m) {
      if (n === this.bodyStart) {
        this.started = true;
        this.layer = 'body';
      }
      const text = tidy(textContent(n));
      const level = Number(m[1]);
      if (text) this.push(level === 1 ? { cls: 'title', text } : { cls: 'section_header', level: level - 1, text });
      return;
    }
    switch (tag) {
      case 'ul':
      case 'ol':
        this.list(n, tag === 'ol', listDepth);
        return;
      case 'table':
        this.push(this.table(n));
        return;
      case 'footer':
        this.footer(n, listDepth);
        return;
      case 'pre': {
        const code = (n.childNodes ?? []).find((c) => c.tagName === 'code');
        const cls = `${attr(n, 'class') ?? ''} ${code ? (attr(code, 'class') ?? '') : ''}`;
        const lang = /(?:language|lang)-([\w+#-]+)/.exec(cls)?.[1];
        // The pre's own text, not textContent's spacing around a block; a first line break (after
        // `<pre>` or `<pre><code>`) starts the block, not its text.
        const inner = (n.childNodes ?? []).map(textContent).join('');
        const text = inner.replace(/^[ \t]*\r?\n/, '').replace(/\s+$/, '');
        if (text) this.push({ cls: 'code', text, ...(lang ? { language: lang } : {}) });
        return;
      }
      case 'figure': {
        const cap = (n.childNodes ?? []).find((c) => c.tagName === 'figcaption');
        const start = this.items.length;
        for (const c of n.childNodes ?? []) if (c !== cap) this.block(c, listDepth);
        this.flush();
        const capText = cap ? tidy(textContent(cap)) : '';
        const owner = this.items.slice(start).find((it) => it.cls === 'picture' || it.cls === 'table');
        if (capText && owner) owner.caption = { cls: 'caption', text: capText };
        else if (capText) this.push({ cls: 'caption', text: capText });
        return;
      }
      default:
        for (const c of n.childNodes ?? []) this.block(c, listDepth);
        this.flush();
    }
  }

  /** A page's or an article's footer is furniture, as Docling's HTML backend makes it. */
  private footer(n: Node, listDepth: number): void {
    const outer = this.layer;
    this.layer = 'page_footer';
    for (const c of n.childNodes ?? []) this.block(c, listDepth);
    this.flush();
    this.layer = this.started ? (outer === 'page_footer' ? outer : 'body') : outer;
  }

  private list(n: Node, ordered: boolean, depth: number): void {
    let k = Number(attr(n, 'start') ?? 1);
    if (!Number.isFinite(k)) k = 1;
    for (const li of n.childNodes ?? []) {
      if (li.tagName !== 'li') {
        if (li.tagName === 'ul' || li.tagName === 'ol') this.list(li, li.tagName === 'ol', depth + 1);
        continue;
      }
      const own: Node[] = [];
      const nested: Node[] = [];
      for (const c of li.childNodes ?? []) (c.tagName === 'ul' || c.tagName === 'ol' ? nested : own).push(c);
      const text = tidy(own.map(textContent).join(''));
      const value = Number(attr(li, 'value'));
      if (Number.isFinite(value) && attr(li, 'value') !== undefined) k = value;
      if (text) this.push({ cls: 'list_item', level: depth, ordered, marker: ordered ? `${k}.` : undefined, text });
      k++;
      for (const c of nested) this.list(c, c.tagName === 'ol', depth + 1);
    }
  }

  private table(t: Node): DocItem {
    const trs: Node[] = [];
    let caption: string | undefined;
    const collect = (n: Node) => {
      for (const c of n.childNodes ?? []) {
        if (c.tagName === 'tr') trs.push(c);
        else if (c.tagName === 'thead' || c.tagName === 'tbody' || c.tagName === 'tfoot') collect(c);
        else if (c.tagName === 'caption') caption = tidy(textContent(c));
      }
    };
    collect(t);
    const grid: (OtslCell | undefined)[][] = [];
    const MAX_SPAN = 1000;
    trs.forEach((tr, r) => {
      grid[r] ??= [];
      let c = 0;
      for (const td of tr.childNodes ?? []) {
        if (td.tagName !== 'td' && td.tagName !== 'th') continue;
        while (grid[r][c]) c++;
        const rs = Math.min(MAX_SPAN, Math.max(1, Number(attr(td, 'rowspan') ?? 1) || 1));
        const cs = Math.min(MAX_SPAN, Math.max(1, Number(attr(td, 'colspan') ?? 1) || 1));
        const text = tidy(cellText(td));
        for (let i = 0; i < rs && r + i < trs.length; i++) {
          grid[r + i] ??= [];
          for (let j = 0; j < cs; j++) {
            let tag: OtslCell['tag'];
            if (i === 0 && j === 0) tag = text ? (td.tagName === 'th' ? 'ched' : 'fcel') : 'ecel';
            else tag = i === 0 ? 'lcel' : j === 0 ? 'ucel' : 'xcel';
            grid[r + i][c + j] = { tag, text: i === 0 && j === 0 ? text : '' };
          }
        }
        c += cs;
      }
    });
    const width = Math.max(0, ...grid.map((r) => r.length));
    const rows = grid.map((r) => Array.from({ length: width }, (_, c) => r[c] ?? { tag: 'ecel' as const, text: '' }));
    const item: DocItem = { cls: 'table', text: '', table: rows };
    if (caption) item.caption = { cls: 'caption', text: caption };
    return item;
  }

  private picture(img: Node): DocItem {
    const item: DocItem = { cls: 'picture', text: '' };
    const alt = tidy(attr(img, 'alt') ?? '');
    if (alt) item.caption = { cls: 'caption', text: alt };
    const src = attr(img, 'src') ?? '';
    const m = /^data:image\/(png|jpeg|gif);base64,([A-Za-z0-9+/=\s]+)$/.exec(src);
    if (m && this.opts.savePicture) {
      const path = this.opts.savePicture(Buffer.from(m[2], 'base64'), m[1]);
      if (path) item.imagePath = path;
    } else if (src) this.pictures++;
    return item;
  }

  get unfetched(): number {
    return this.pictures;
  }
}

export function readHtml(text: string, opts: ReadOptions = {}): StructuredDocument {
  const doc = parse(text) as unknown as Node;
  const html = doc.childNodes?.find((c) => c.tagName === 'html');
  const body = html?.childNodes?.find((c) => c.tagName === 'body') ?? html ?? doc;
  const reader = new HtmlReader(opts, firstHeading(body));
  reader.block(body);
  const warnings =
    reader.unfetched > 0
      ? [
          `${reader.unfetched} picture(s) named by URL or path were not fetched (Folio never loads remote or linked resources): placeholders`,
        ]
      : [];
  return { format: 'html', pages: [{ page: 1, ...LETTER, items: reader.items }], warnings };
}
