/**
 * A grouped horizontal-free SVG bar chart (no dependencies): one group per metric, one bar per
 * converter, values 0–1. For "lower is better" metrics the bar shows 1 − value so that taller
 * is better everywhere, and the label says so.
 */
export interface ChartSeries {
  name: string;
  values: (number | undefined)[];
}

const COLORS = ['#2f6fdf', '#e07b39', '#5aa469', '#b04fb0', '#c9a227', '#6b7b8c', '#d1495b'];

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function barChartSvg(title: string, groups: string[], series: ChartSeries[]): string {
  const barW = 14;
  const gap = 18;
  const groupW = series.length * barW + gap;
  const left = 40;
  const top = 40;
  const h = 220;
  const width = left + groups.length * groupW + 20;
  const legendY = top + h + 60;
  const height = legendY + 20 * Math.ceil(series.length / 3) + 10;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
  );
  out.push(`<rect width="100%" height="100%" fill="white"/>`);
  out.push(`<text x="${left}" y="20" font-size="14" font-weight="bold">${esc(title)}</text>`);
  for (let t = 0; t <= 4; t++) {
    const y = top + h - (t / 4) * h;
    out.push(`<line x1="${left}" x2="${width - 10}" y1="${y}" y2="${y}" stroke="#ddd"/>`);
    out.push(`<text x="${left - 6}" y="${y + 4}" text-anchor="end" fill="#555">${(t / 4).toFixed(2)}</text>`);
  }
  groups.forEach((g, gi) => {
    const x0 = left + gi * groupW + gap / 2;
    series.forEach((s, si) => {
      const v = s.values[gi];
      if (v === undefined || !Number.isFinite(v)) return;
      const bh = Math.max(0, Math.min(1, v)) * h;
      out.push(
        `<rect x="${x0 + si * barW}" y="${(top + h - bh).toFixed(1)}" width="${barW - 2}" height="${bh.toFixed(1)}" fill="${COLORS[si % COLORS.length]}"><title>${esc(`${s.name} · ${g}: ${v.toFixed(3)}`)}</title></rect>`,
      );
    });
    out.push(`<text x="${x0 + (series.length * barW) / 2}" y="${top + h + 16}" text-anchor="middle">${esc(g)}</text>`);
  });
  series.forEach((s, si) => {
    const x = left + (si % 3) * 170;
    const y = legendY + Math.floor(si / 3) * 20;
    out.push(
      `<rect x="${x}" y="${y - 10}" width="12" height="12" fill="${COLORS[si % COLORS.length]}"/><text x="${x + 18}" y="${y}">${esc(s.name)}</text>`,
    );
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
