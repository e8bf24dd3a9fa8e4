/**
 * Ground-truth Markdown → the blocks a VLM would write in DocTags, for the oracle replay on sets
 * whose ground truth is Markdown (docling-src-rendered, selfmade-example). Each block gets its
 * tag from the Markdown syntax and, later, its locations from the pipeline region it matches.
 *
 * Conventions (docling's Markdown export read backwards): `#` → title, `##` → level 1, `###` →
 * level 2 …; list lines → `list_item` inside `<unordered_list>` / `<ordered_list>`; pipe tables →
 * OTSL (`<ched>` for the header row, `<fcel>`/`<ecel>` below, `<nl>` per row); fenced code →
 * `<code>` with `<_lang_>`; `$$…$$` → `<formula>` with the LaTeX; images → `<picture>`;
 * everything else → `<text>` with lines joined. Inline Markdown (emphasis, links, code spans,
 * escapes) is removed, and inline `$…$` math is turned into the glyphs a reader of the rendered
 * page sees (a small TeX→Unicode table), since the model writes what the page shows.
 */

export interface TargetBlock {
  tag: string;
  /** Content between the locations and the closing tag (OTSL/code markup included). */
  content: string;
  /** Plain words for matching the block to pipeline regions. */
  plain: string;
  /** `ordered_list` / `unordered_list` when the block is a list item. */
  list?: 'ordered_list' | 'unordered_list';
}

const TEX: Record<string, string> = {
  '\\times': '×',
  '\\cdot': '·',
  '\\approx': '≈',
  '\\le': '≤',
  '\\leq': '≤',
  '\\ge': '≥',
  '\\geq': '≥',
  '\\neq': '≠',
  '\\pm': '±',
  '\\infty': '∞',
  '\\top': '⊤',
  '\\bmod': 'mod',
  '\\alpha': 'α',
  '\\beta': 'β',
  '\\gamma': 'γ',
  '\\delta': 'δ',
  '\\epsilon': 'ϵ',
  '\\lambda': 'λ',
  '\\mu': 'μ',
  '\\pi': 'π',
  '\\sigma': 'σ',
  '\\theta': 'θ',
  '\\sum': '∑',
  '\\in': '∈',
  '\\to': '→',
  '\\rightarrow': '→',
  '\\,': ' ',
  '\\ ': ' ',
  '\\quad': ' ',
  '\\qquad': ' ',
  '\\ldots': '…',
  '\\dots': '…',
};

function inlineMath(tex: string): string {
  return tex
    .replace(/\\[a-zA-Z]+|\\[, ]/g, (c) => TEX[c] ?? c.slice(1))
    .replace(/[{}]/g, '')
    .replace(/_(\w)/g, '$1')
    .replace(/\^(\w)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Inline Markdown → the text the page shows. */
export function inlineText(md: string): string {
  return md
    .replace(/\$(?=\S)([^$\n]+?)(?<=\S)\$(?!\d)/g, (_, t) => inlineMath(t))
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<\/?[a-zA-Z][^>]*>/g, '')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[^\w*])[*_]([^*_\s][^*_]*?)[*_](?=[^\w*]|$)/g, '$1$2')
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>~])/g, '$1')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/\s+/g, ' ')
    .trim()
    .normalize('NFKC');
}

/** The rule under a pipe table's header: `| --- | :-: |`, single dashes allowed. */
const TABLE_RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const LIST_RE = /^(\s*)([-*+]|\d{1,3}[.)])\s+(.*)$/;

function splitRow(line: string): string[] {
  const cells = line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/);
  return cells.map((c) => inlineText(c));
}

export function markdownToBlocks(md: string): TargetBlock[] {
  const lines = md.replace(/\r\n?/g, '\n').split('\n');
  const out: TargetBlock[] = [];
  let para: string[] = [];
  let sawTitle = false;
  const flush = () => {
    const text = inlineText(para.join(' '));
    para = [];
    if (text) out.push({ tag: 'text', content: text, plain: text });
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const t = line.trim();
    if (!t) {
      flush();
      continue;
    }
    const fence = /^(```|~~~)\s*([\w+-]*)/.exec(t);
    if (fence) {
      flush();
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i].trim().startsWith(fence[1]); i++) body.push(lines[i]);
      const lang = fence[2] ? fence[2][0].toUpperCase() + fence[2].slice(1) : 'unknown';
      const code = body.join('\n');
      out.push({ tag: 'code', content: `<_${lang}_>${code}`, plain: code });
      continue;
    }
    if (t.startsWith('$$')) {
      flush();
      let tex = t.slice(2);
      while (!tex.trimEnd().endsWith('$$') && i + 1 < lines.length) tex += ' ' + lines[++i].trim();
      tex = tex.trimEnd().replace(/\$\$$/, '').trim();
      out.push({ tag: 'formula', content: tex, plain: tex });
      continue;
    }
    const h = /^(#{1,6})\s+(.*?)\s*#*$/.exec(t);
    if (h) {
      flush();
      const text = inlineText(h[2]);
      const tag = h[1].length === 1 && !sawTitle ? 'title' : `section_header_level_${Math.max(1, h[1].length - 1)}`;
      if (h[1].length === 1) sawTitle = true;
      out.push({ tag, content: text, plain: text });
      continue;
    }
    if (t.startsWith('|') && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1])) {
      flush();
      const header = splitRow(t);
      const rows: string[][] = [];
      for (i += 2; i < lines.length && lines[i].trim().startsWith('|'); i++) rows.push(splitRow(lines[i]));
      i--;
      let otsl = header.map((c) => `<ched>${c}`).join('') + '<nl>';
      for (const r of rows) otsl += r.map((c) => (c ? `<fcel>${c}` : '<ecel>')).join('') + '<nl>';
      out.push({ tag: 'otsl', content: otsl, plain: [...header, ...rows.flat()].join(' ') });
      continue;
    }
    if (/^<!--\s*image\s*-->$/.test(t) || /^!\[[^\]]*\]\([^)]*\)$/.test(t)) {
      flush();
      out.push({ tag: 'picture', content: '', plain: '' });
      continue;
    }
    if (/^<!--.*-->$/.test(t) || /^(-{3,}|\*{3,}|_{3,})$/.test(t)) {
      flush();
      continue;
    }
    const li = LIST_RE.exec(line);
    if (li) {
      flush();
      const text = inlineText(li[3]);
      const list = /\d/.test(li[2]) ? 'ordered_list' : 'unordered_list';
      out.push({ tag: 'list_item', content: text, plain: text, list });
      continue;
    }
    para.push(t.replace(/^>\s?/, ''));
  }
  flush();
  return out;
}
