/**
 * HTML with CSS columns for Chromium's print-to-PDF. The title block spans the page; a band
 * closes the column container and puts the wide figure across the page, then columns resume.
 */
import type { Block, Doc } from './doc';

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

function block(b: Block, figure: string): string {
  switch (b.k) {
    case 'h':
      return `<h${b.level}>${esc(b.text)}</h${b.level}>`;
    case 'p':
      return `<p>${esc(b.text)}</p>`;
    case 'ul':
    case 'ol':
      return `<${b.k}>${b.items.map((t) => `<li>${esc(t)}</li>`).join('')}</${b.k}>`;
    case 'formula':
      return b.mathml;
    case 'table': {
      const [head, ...rows] = b.rows;
      return `<p class="cap">${esc(b.caption)}</p><table><tr>${head.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>${rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`).join('')}</table>`;
    }
    case 'figure':
      return `<figure><img src="${figure}" alt=""><figcaption>${esc(b.caption)}</figcaption></figure>`;
  }
}

/** `gutterMm`: the space between columns (8 mm by default; the narrow set of issue 40 uses 0.15 in). */
export function toHtml(d: Doc, figure: string, gutterMm = 8): string {
  const css = `@page { size: A4; margin: 18mm; }
body { font-family: 'DejaVu Serif', serif; font-size: 10pt; line-height: 1.35; margin: 0; }
h1 { text-align: center; font-size: 20pt; margin: 0 0 4pt; } .author { text-align: center; font-size: 12pt; margin-bottom: 14pt; }
.cols { column-count: ${d.columns}; column-gap: ${gutterMm}mm; text-align: justify; }
h2 { font-size: 13pt; margin: 10pt 0 4pt; } h3 { font-size: 11pt; margin: 8pt 0 3pt; }
p { margin: 0 0 5pt; } figure { margin: 6pt 0; text-align: center; } img { width: 100%; } .wide img { width: 80%; }
figcaption, .cap { font-size: 9pt; text-align: center; } table { border-collapse: collapse; margin: 4pt auto; font-size: 9pt; }
td, th { border: 0.5pt solid #000; padding: 1pt 4pt; } math { font-size: 11pt; }`;
  const out = [
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(d.title)}</title><style>${css}</style></head><body>`,
  ];
  out.push(`<h1>${esc(d.title)}</h1><p class="author">${esc(d.author)}</p><div class="cols">`);
  for (const b of d.blocks) {
    if (b.k === 'figure' && b.wide) out.push(`</div><div class="wide">${block(b, figure)}</div><div class="cols">`);
    else out.push(block(b, figure));
  }
  out.push('</div></body></html>');
  return out.join('\n');
}
