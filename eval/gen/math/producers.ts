/**
 * Typesets the math-and-tables set (sources.ts) with real producers and writes, beside each PDF,
 * its ground truth as Markdown (`$$…$$` display formulas, `$…$` inline, tables as HTML):
 *   - XeLaTeX, amsmath + booktabs, Computer Modern math (Type 1 cmmi/cmsy/cmex);
 *   - XeLaTeX with unicode-math and Latin Modern Math (Unicode math alphanumerics);
 *   - Chromium printing KaTeX's HTML+CSS output (KaTeX fonts, fraction bars as borders);
 *   - LibreOffice Writer converting an HTML document with the tables;
 *   - LibreOffice Writer/Math: a Flat ODF text document whose formulas are LibreOffice Math
 *     objects (StarMath source, starmath.ts), exported to PDF (needs the libreoffice-math module).
 * Each producer that is not installed is skipped with a line on stderr.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DISPLAY, INLINE, INLINE_SENTENCES, TABLES, type FormulaSrc, type TableSrc } from './sources';
import { STARMATH } from './starmath';

export interface Produced {
  name: string;
  pdf: string;
  truth: string;
}

function has(cmd: string): boolean {
  try {
    execFileSync('which', [cmd], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Ground truth Markdown of a math document: display formulas, then the inline sentences (each
 * inline formula keeps its own sentence, also when a producer leaves some formulas out).
 */
function mathTruth(display: FormulaSrc[], inline: FormulaSrc[]): string {
  const out: string[] = ['# Formulas'];
  for (const f of display) out.push(`$$${f.latex}$$`);
  for (const f of inline) out.push(INLINE_SENTENCES[INLINE.indexOf(f)]!.replace('@', `$${f.latex}$`));
  return out.join('\n\n') + '\n';
}

function tableHtml(t: TableSrc): string {
  const head = t.head.map(
    (r) =>
      '<tr>' +
      r.map((c) => `<th${c.span && c.span > 1 ? ` colspan="${c.span}"` : ''}>${esc(c.text)}</th>`).join('') +
      '</tr>',
  );
  const body = t.body.map((r) => '<tr>' + r.map((c) => `<td>${esc(c)}</td>`).join('') + '</tr>');
  return `<table>\n${[...head, ...body].join('\n')}\n</table>`;
}

function tablesTruth(): string {
  const out: string[] = ['# Tables'];
  for (const t of TABLES) {
    if (t.caption) out.push(t.caption);
    out.push(tableHtml(t));
  }
  return out.join('\n\n') + '\n';
}

// ---- XeLaTeX ----

function texEsc(s: string): string {
  return s.replace(/([%&#_$])/g, '\\$1');
}

function latexTable(t: TableSrc): string {
  const align = (t.align ?? 'l'.repeat(t.body[0]!.length))
    .split('')
    .map((a, k) => (t.wrap?.[k] ? `p{${t.wrap[k]}cm}` : a));
  const row = (cells: string[]) => cells.join(' & ') + ' \\\\';
  const lines: string[] = [];
  if (t.caption) lines.push(`\\noindent ${texEsc(t.caption)}\\par\\smallskip`);
  lines.push(`\\noindent\\begin{tabular}{${align.join('')}}`);
  if (t.rules === 'booktabs') lines.push('\\toprule');
  t.head.forEach((r, k) => {
    let col = 1;
    const cells = r.map((c) => {
      return c.span && c.span > 1 ? `\\multicolumn{${c.span}}{c}{${texEsc(c.text)}}` : texEsc(c.text);
    });
    lines.push(row(cells));
    // Spanning header cells get a \cmidrule under them.
    col = 1;
    const mids: string[] = [];
    for (const c of r) {
      if (c.span && c.span > 1) mids.push(`\\cmidrule(lr){${col}-${col + c.span - 1}}`);
      col += c.span ?? 1;
    }
    if (mids.length && k < t.head.length - 1) lines.push(mids.join(''));
  });
  if (t.rules === 'booktabs') lines.push('\\midrule');
  if (t.rules === 'header') lines.push('\\hline');
  for (const r of t.body) lines.push(row(r.map(texEsc)));
  if (t.rules === 'booktabs') lines.push('\\bottomrule');
  lines.push('\\end{tabular}\\par\\bigskip');
  return lines.join('\n');
}

function latexMathBody(display: FormulaSrc[], inline: FormulaSrc[]): string {
  const parts = ['\\section*{Formulas}'];
  for (const f of display) parts.push(`Next:\n\\[ ${f.latex} \\]`);
  inline.forEach((f, k) => parts.push(INLINE_SENTENCES[k]!.replace('@', `$${f.latex}$`)));
  return parts.join('\n\n');
}

function xelatex(dir: string, name: string, preamble: string, body: string): string | undefined {
  const tex = `\\documentclass[11pt]{article}\n\\usepackage[margin=2.5cm]{geometry}\n${preamble}\n\\pagestyle{empty}\n\\setlength{\\parindent}{0pt}\n\\setlength{\\parskip}{8pt}\n\\begin{document}\n${body}\n\\end{document}\n`;
  writeFileSync(join(dir, `${name}.tex`), tex);
  try {
    execFileSync('xelatex', ['-interaction=nonstopmode', '-halt-on-error', `${name}.tex`], {
      cwd: dir,
      stdio: 'ignore',
      timeout: 120_000,
    });
  } catch (e) {
    process.stderr.write(`gen: xelatex failed on ${name}: ${(e as Error).message.split('\n')[0]}\n`);
    return undefined;
  }
  return join(dir, `${name}.pdf`);
}

// ---- Chromium / LibreOffice (HTML) ----

function htmlDoc(body: string, css: string, katexCss?: string): string {
  return `<!doctype html><html><head><meta charset="utf-8">${katexCss ? `<link rel="stylesheet" href="${katexCss}">` : ''}<style>body{font-family:serif;font-size:12pt;margin:2cm}${css}</style></head><body>${body}</body></html>`;
}

const TABLE_CSS =
  'table{border-collapse:collapse;margin:0 0 18pt 0}td,th{padding:2pt 10pt;text-align:left;vertical-align:top;font-weight:normal}' +
  'table.booktabs{border-top:1.5pt solid #000;border-bottom:1.5pt solid #000}table.booktabs tr.last-head th,table.header tr.last-head th{border-bottom:0.6pt solid #000}' +
  'td.r{text-align:right}';

function htmlTables(fixedWidth = false): string {
  return TABLES.map((t) => {
    const align = t.align ?? '';
    const head = t.head
      .map(
        (r, k) =>
          `<tr${k === t.head.length - 1 ? ' class="last-head"' : ''}>` +
          r
            .map(
              (c) =>
                `<th${c.span && c.span > 1 ? ` colspan="${c.span}" style="text-align:center"` : ''}>${esc(c.text)}</th>`,
            )
            .join('') +
          '</tr>',
      )
      .join('');
    const body = t.body
      .map(
        (r) =>
          '<tr>' +
          r
            .map(
              (c, k) =>
                `<td class="${align[k] === 'r' ? 'r' : ''}"${t.wrap?.[k] ? ` style="width:${t.wrap[k]}cm"` : ''}>${esc(c)}</td>`,
            )
            .join('') +
          '</tr>',
      )
      .join('');
    const cls = t.rules === 'booktabs' ? 'booktabs' : t.rules === 'header' ? 'header' : 'none';
    // LibreOffice's HTML import shrinks a table without a width to its narrowest words.
    return `${t.caption ? `<p>${esc(t.caption)}</p>` : ''}<table class="${cls}"${fixedWidth ? ' width="80%" cellpadding="4"' : ''}>${head}${body}</table>`;
  }).join('\n');
}

/**
 * The tables for LibreOffice Writer's HTML import, which reads table attributes (frame, rules,
 * width, align) rather than CSS: booktabs as `frame="hsides" rules="groups"`.
 */
function writerTables(): string {
  return TABLES.map((t) => {
    const align = t.align ?? '';
    const head = t.head
      .map(
        (r) =>
          '<tr>' +
          r.map((c) => `<th${c.span && c.span > 1 ? ` colspan="${c.span}"` : ''}>${esc(c.text)}</th>`).join('') +
          '</tr>',
      )
      .join('');
    const body = t.body
      .map(
        (r) =>
          '<tr>' +
          r
            .map(
              (c, k) =>
                `<td${align[k] === 'r' ? ' align="right"' : ''}${t.wrap?.[k] ? ` width="${Math.round(t.wrap[k]! * 38)}"` : ''}>${esc(c)}</td>`,
            )
            .join('') +
          '</tr>',
      )
      .join('');
    const frame =
      t.rules === 'booktabs'
        ? 'frame="hsides" rules="groups"'
        : t.rules === 'header'
          ? 'frame="void" rules="groups"'
          : 'frame="void" rules="none"';
    return `${t.caption ? `<p>${esc(t.caption)}</p>` : ''}<table width="80%" cellpadding="4" cellspacing="0" ${frame}><thead>${head}</thead><tbody>${body}</tbody></table><p></p>`;
  }).join('\n');
}

function chromium(dir: string, name: string, html: string): string | undefined {
  const file = join(dir, `${name}.html`);
  writeFileSync(file, html);
  const pdf = join(dir, `${name}.pdf`);
  try {
    execFileSync(
      'chromium',
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-pdf-header-footer',
        `--print-to-pdf=${pdf}`,
        `file://${file}`,
      ],
      { stdio: 'ignore', timeout: 120_000 },
    );
  } catch (e) {
    process.stderr.write(`gen: chromium failed on ${name}: ${(e as Error).message.split('\n')[0]}\n`);
    return undefined;
  }
  return existsSync(pdf) ? pdf : undefined;
}

function libreoffice(dir: string, name: string, html: string): string | undefined {
  const file = join(dir, `${name}.html`);
  writeFileSync(file, html);
  const profile = mkdtempSync(join(tmpdir(), 'folio-lo-'));
  try {
    execFileSync(
      'soffice',
      [
        `-env:UserInstallation=file://${profile}`,
        '--headless',
        '--infilter=HTML (StarWriter)',
        '--convert-to',
        'pdf:writer_pdf_Export',
        '--outdir',
        dir,
        file,
      ],
      { stdio: 'ignore', timeout: 180_000 },
    );
  } catch (e) {
    process.stderr.write(`gen: libreoffice failed on ${name}: ${(e as Error).message.split('\n')[0]}\n`);
    return undefined;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
  const pdf = join(dir, `${name}.pdf`);
  return existsSync(pdf) ? pdf : undefined;
}

// ---- LibreOffice Writer/Math (Flat ODF with formula objects) ----

const FODT_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" ' +
  'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" ' +
  'xmlns:xlink="http://www.w3.org/1999/xlink"';

/**
 * A Flat ODF text document: each display formula a centered paragraph holding only a Math
 * object anchored as a character, each inline one inside its sentence. The objects carry only
 * their StarMath source (an empty presentation `<mrow/>`); LibreOffice Math parses the
 * annotation on load and lays the formula out itself, as it does for a formula typed in Writer.
 */
export function writerMathFodt(display: FormulaSrc[], inline: FormulaSrc[]): string {
  let n = 0;
  const obj = (f: FormulaSrc) =>
    `<draw:frame draw:style-name="fr1" draw:name="Formula${++n}" text:anchor-type="as-char"><draw:object>` +
    `<math xmlns="http://www.w3.org/1998/Math/MathML" display="${f.display ? 'block' : 'inline'}"><semantics><mrow/>` +
    `<annotation encoding="StarMath 5.0">${esc(STARMATH[f.latex]!)}</annotation></semantics></math></draw:object></draw:frame>`;
  const paras = ['<text:h text:outline-level="1">Formulas</text:h>'];
  for (const f of display) paras.push('<text:p>Next:</text:p>', `<text:p text:style-name="Display">${obj(f)}</text:p>`);
  for (const f of inline) {
    const [a, b] = INLINE_SENTENCES[INLINE.indexOf(f)]!.split('@');
    paras.push(`<text:p>${esc(a!)}${obj(f)}${esc(b!)}</text:p>`);
  }
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<office:document ${FODT_NS} office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">` +
    '<office:automatic-styles><style:style style:name="Display" style:family="paragraph"><style:paragraph-properties fo:text-align="center"/></style:style>' +
    '<style:style style:name="fr1" style:family="graphic"><style:graphic-properties style:vertical-pos="top" style:vertical-rel="baseline"/></style:style></office:automatic-styles>' +
    `<office:body><office:text>\n${paras.join('\n')}\n</office:text></office:body></office:document>\n`
  );
}

/** The set's formulas that have a StarMath form (the others are left out, see starmath.ts). */
export function writerMathFormulas(): { display: FormulaSrc[]; inline: FormulaSrc[] } {
  return { display: DISPLAY.filter((f) => STARMATH[f.latex]), inline: INLINE.filter((f) => STARMATH[f.latex]) };
}

/** StarBasic: each embedded object sized to its own visual area, then the PDF export. */
const SIZE_FRAMES_MACRO = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE script:module PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "module.dtd">
<script:module xmlns:script="http://openoffice.org/2000/script" script:name="Module1" script:language="StarBasic">
Sub SizeAndExport(inPath As String, outPath As String)
  Dim args(0) As New com.sun.star.beans.PropertyValue
  args(0).Name = &quot;Hidden&quot;
  args(0).Value = True
  doc = StarDesktop.loadComponentFromURL(ConvertToURL(inPath), &quot;_blank&quot;, 0, args())
  objs = doc.getEmbeddedObjects()
  names = objs.getElementNames()
  For i = 0 To UBound(names)
    o = objs.getByName(names(i))
    o.Size = o.ExtendedControlOverEmbeddedObject.getVisualAreaSize(1)
  Next i
  Dim pa(0) As New com.sun.star.beans.PropertyValue
  pa(0).Name = &quot;FilterName&quot;
  pa(0).Value = &quot;writer_pdf_Export&quot;
  doc.storeToURL(ConvertToURL(outPath), pa())
  doc.close(True)
  StarDesktop.terminate()
End Sub
</script:module>
`;

function libreofficeMath(dir: string, name: string, fodt: string): string | undefined {
  const file = join(dir, `${name}.fodt`);
  writeFileSync(file, fodt);
  const profile = mkdtempSync(join(tmpdir(), 'folio-lo-'));
  const pdf = join(dir, `${name}.pdf`);
  try {
    // A Math object typed in Writer takes its formula's size; one loaded from a file keeps the
    // frame it is given (none: 4 × 0.5 cm, every formula squashed into it). A Basic macro in a
    // fresh profile sizes each frame to its formula, as Writer's UI does, then exports the PDF.
    execFileSync('soffice', [`-env:UserInstallation=file://${profile}`, '--headless', '--terminate_after_init'], {
      stdio: 'ignore',
      timeout: 180_000,
    });
    const lib = join(profile, 'user', 'basic', 'Standard');
    mkdirSync(lib, { recursive: true });
    writeFileSync(join(lib, 'Module1.xba'), SIZE_FRAMES_MACRO);
    execFileSync(
      'soffice',
      [
        `-env:UserInstallation=file://${profile}`,
        '--headless',
        `macro:///Standard.Module1.SizeAndExport("${file}","${pdf}")`,
      ],
      { stdio: 'ignore', timeout: 180_000 },
    );
    if (!existsSync(pdf)) {
      process.stderr.write(
        `gen: ${name}: the frame-sizing macro did not run; exporting with LibreOffice's default frames (formulas squashed)\n`,
      );
      execFileSync(
        'soffice',
        [
          `-env:UserInstallation=file://${profile}`,
          '--headless',
          '--convert-to',
          'pdf:writer_pdf_Export',
          '--outdir',
          dir,
          file,
        ],
        { stdio: 'ignore', timeout: 180_000 },
      );
    }
  } catch (e) {
    process.stderr.write(`gen: libreoffice failed on ${name}: ${(e as Error).message.split('\n')[0]}\n`);
    return undefined;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
  if (!existsSync(pdf)) return undefined;
  // Without LibreOffice's Math module Writer drops the objects silently: the PDF then has the
  // sentences but no formula. OpenSymbol (Math's font) in the PDF shows they were typeset.
  try {
    if (!execFileSync('pdffonts', [pdf], { encoding: 'utf8' }).includes('OpenSymbol')) {
      process.stderr.write(
        `gen: ${name}: LibreOffice typeset no formula (is the libreoffice-math package installed?), skipping it\n`,
      );
      return undefined;
    }
  } catch {
    process.stderr.write(
      `gen: ${name}: pdffonts (poppler-utils) not installed, cannot check the formulas were typeset\n`,
    );
  }
  return pdf;
}

function katexHtml(repo: string): { body: string; css: string } | undefined {
  let katex: { renderToString(t: string, o: object): string };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    katex = require(join(repo, 'node_modules', 'katex')) as typeof katex;
  } catch {
    return undefined;
  }
  const parts = ['<h1>Formulas</h1>'];
  for (const f of DISPLAY)
    parts.push(`<p>Next:</p>${katex.renderToString(f.latex, { displayMode: true, throwOnError: true })}`);
  INLINE.forEach((f, k) => {
    const [a, b] = INLINE_SENTENCES[k]!.split('@');
    parts.push(
      `<p>${esc(a!)}${katex.renderToString(f.latex, { displayMode: false, throwOnError: true })}${esc(b!)}</p>`,
    );
  });
  return { body: parts.join('\n'), css: `file://${join(repo, 'node_modules', 'katex', 'dist', 'katex.min.css')}` };
}

/** Typesets every document of the set into `outDir`; returns what was made. */
export function generate(outDir: string, repo: string): Produced[] {
  const dir = resolve(outDir);
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'folio-mathgen-'));
  const made: Produced[] = [];
  const keep = (name: string, pdf: string | undefined, truth: string) => {
    if (!pdf) return;
    const dest = join(dir, `${name}.pdf`);
    copyFileSync(pdf, dest);
    writeFileSync(join(dir, `${name}.md`), truth);
    made.push({ name, pdf: dest, truth: join(dir, `${name}.md`) });
  };
  try {
    const mathTruthAll = mathTruth(DISPLAY, INLINE);
    if (has('xelatex')) {
      keep(
        'xelatex-cm-math',
        xelatex(work, 'xelatex-cm-math', '\\usepackage{amsmath}', latexMathBody(DISPLAY, INLINE)),
        mathTruthAll,
      );
      keep(
        'xelatex-unicode-math',
        xelatex(
          work,
          'xelatex-unicode-math',
          '\\usepackage{amsmath}\n\\usepackage{unicode-math}\n\\setmathfont{latinmodern-math.otf}',
          latexMathBody(DISPLAY, INLINE),
        ),
        mathTruthAll,
      );
      keep(
        'xelatex-booktabs',
        xelatex(
          work,
          'xelatex-booktabs',
          '\\usepackage{booktabs}\n\\usepackage{array}',
          '\\section*{Tables}\n\n' + TABLES.map(latexTable).join('\n\n'),
        ),
        tablesTruth(),
      );
    } else process.stderr.write('gen: xelatex not installed, skipping the LaTeX documents\n');
    if (has('chromium')) {
      const k = katexHtml(repo);
      if (k)
        keep('chromium-katex-math', chromium(work, 'chromium-katex-math', htmlDoc(k.body, '', k.css)), mathTruthAll);
      keep(
        'chromium-tables',
        chromium(work, 'chromium-tables', htmlDoc('<h1>Tables</h1>' + htmlTables(), TABLE_CSS)),
        tablesTruth(),
      );
    } else process.stderr.write('gen: chromium not installed, skipping the HTML documents\n');
    if (has('soffice')) {
      const lo = writerMathFormulas();
      keep(
        'libreoffice-math',
        libreofficeMath(work, 'libreoffice-math', writerMathFodt(lo.display, lo.inline)),
        mathTruth(lo.display, lo.inline),
      );
    }
    if (has('soffice'))
      keep(
        'libreoffice-tables',
        libreoffice(
          work,
          'libreoffice-tables',
          `<!doctype html><html><head><meta charset="utf-8"></head><body><h1>Tables</h1>${writerTables()}</body></html>`,
        ),
        tablesTruth(),
      );
    else process.stderr.write('gen: soffice not installed, skipping the LibreOffice document\n');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return made;
}
