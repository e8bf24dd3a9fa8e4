/** The ground truth: the document model written as Markdown, in source (reading) order. */
import type { Doc } from './doc';

export function toMarkdown(d: Doc): string {
  const out: string[] = [`# ${d.title}`, d.author];
  for (const b of d.blocks) {
    if (b.k === 'h') out.push(`${'#'.repeat(b.level)} ${b.text}`);
    else if (b.k === 'p') out.push(b.text);
    else if (b.k === 'ul') out.push(b.items.map((t) => `- ${t}`).join('\n'));
    else if (b.k === 'ol') out.push(b.items.map((t, i) => `${i + 1}. ${t}`).join('\n'));
    else if (b.k === 'formula') out.push(`$$${b.latex}$$`);
    else if (b.k === 'figure') out.push('<!-- image -->', b.caption);
    else if (b.k === 'table') {
      const [head, ...rows] = b.rows;
      out.push(
        b.caption,
        [
          `| ${head.join(' | ')} |`,
          `|${head.map(() => ' --- |').join('')}`,
          ...rows.map((r) => `| ${r.join(' | ')} |`),
        ].join('\n'),
      );
    }
  }
  return out.join('\n\n') + '\n';
}
