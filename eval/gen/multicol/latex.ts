/**
 * XeLaTeX source. Documents without full-width bands use the `twocolumn` class option (LaTeX
 * leaves the last page's columns unbalanced: columns of unequal length); documents with a
 * full-width figure or three columns use `multicol`, which balances each band. Nothing floats:
 * tables and figures are set in place, so the source order is the reading order.
 */
import type { Block, Doc } from './doc';

function block(b: Block, figure: string): string {
  switch (b.k) {
    case 'h':
      return b.level === 2 ? `\\section*{${b.text}}` : `\\subsection*{${b.text}}`;
    case 'p':
      return b.text + '\n';
    case 'ul':
    case 'ol': {
      const env = b.k === 'ul' ? 'itemize' : 'enumerate';
      return `\\begin{${env}}\n${b.items.map((t) => `\\item ${t}`).join('\n')}\n\\end{${env}}`;
    }
    case 'formula':
      return `\\[ ${b.latex} \\]`;
    case 'table':
      return [
        '\\begin{center}\\small',
        `${b.caption}\\par\\smallskip`,
        `\\begin{tabular}{lrrr}\\hline`,
        ...b.rows.map((r, i) => r.join(' & ') + ' \\\\' + (i === 0 ? '\\hline' : '')),
        '\\hline\\end{tabular}\\end{center}',
      ].join('\n');
    case 'figure':
      return `\\begin{center}\\includegraphics[width=${b.wide ? '0.8\\textwidth' : '\\linewidth'}]{${figure}}\\par\\smallskip\\small ${b.caption}\\end{center}`;
  }
}

/** `gutterMm`: the space between columns (8 mm by default; the narrow set of issue 40 uses 0.15 in). */
export function toLatex(d: Doc, figure: string, gutterMm = 8): string {
  const multicol = d.columns !== 2 || d.blocks.some((b) => b.k === 'figure' && b.wide);
  const head = [
    `\\documentclass[10pt${multicol ? '' : ',twocolumn'}]{article}`,
    '\\usepackage[a4paper,margin=18mm]{geometry}',
    '\\usepackage{graphicx}',
    '\\usepackage{multicol}',
    `\\setlength{\\columnsep}{${gutterMm}mm}`,
    '\\pagestyle{plain}',
    '\\begin{document}',
  ];
  const title = `\\begin{center}{\\LARGE\\bfseries ${d.title}\\par}\\medskip{\\large ${d.author}\\par}\\end{center}\\medskip`;
  const body: string[] = [];
  if (multicol) {
    body.push(title, `\\begin{multicols}{${d.columns}}`);
    for (const b of d.blocks) {
      if (b.k === 'figure' && b.wide)
        body.push('\\end{multicols}', block(b, figure), `\\begin{multicols}{${d.columns}}`);
      else body.push(block(b, figure));
    }
    body.push('\\end{multicols}');
  } else {
    body.push(`\\twocolumn[{${title}}]`);
    for (const b of d.blocks) body.push(block(b, figure));
  }
  return [...head, ...body, '\\end{document}', ''].join('\n');
}
