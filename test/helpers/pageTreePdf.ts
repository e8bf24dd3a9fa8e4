/**
 * A page bomb: one Helvetica page shared by a page tree of `levels` levels of ten kids, so the
 * PDF declares 10^levels pages (every one real to pdf.js) in about 1.4 KB. Issue 21 item 8 and
 * security round 3 (F2, the same bomb through the queue).
 */
export function pageTreePdf(levels: number): Buffer {
  const text = 'BT /F1 24 Tf 72 720 Td (One page, declared many times) Tj ET';
  const objs = [
    '<< /Type /Catalog /Pages ' + (3 + levels) + ' 0 R >>',
    `<< /Length ${text.length} >>\nstream\n${text}\nendstream`,
    '<< /Type /Page /Parent 4 0 R /MediaBox [0 0 612 792] /Contents 2 0 R /Resources << /Font << /F1 ' +
      (4 + levels) +
      ' 0 R >> >> >>',
  ];
  for (let l = 0; l < levels; l++) {
    const id = 4 + l;
    const kid = l === 0 ? 3 : id - 1;
    const parent = l === levels - 1 ? '' : ` /Parent ${id + 1} 0 R`;
    objs.push(`<< /Type /Pages${parent} /Kids [${Array(10).fill(`${kid} 0 R`).join(' ')}] /Count ${10 ** (l + 1)} >>`);
  }
  objs.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
