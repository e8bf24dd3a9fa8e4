/**
 * Flat ODT (one XML file) for LibreOffice Writer: the title full width, then the body in a
 * section with `columns` columns; a wide figure closes the section and a new one starts after it.
 * The last section is left unbalanced (`dont-balance-text-columns`): columns of unequal length.
 */
import type { Block, Doc } from './doc';

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
}

const NS = [
  'office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"',
  'draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"',
  'fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"',
  'xlink="http://www.w3.org/1999/xlink"',
  'svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"',
]
  .map((n) => `xmlns:${n}`)
  .join(' ');

function pStyle(name: string, para: string, textProps: string, extra = ''): string {
  return `<style:style style:name="${name}" style:family="paragraph"${extra}><style:paragraph-properties ${para}/><style:text-properties ${textProps}/></style:style>`;
}

function listStyle(name: string, ordered: boolean): string {
  const props = `<style:list-level-properties text:list-level-position-and-space-mode="label-alignment"><style:list-level-label-alignment text:label-followed-by="listtab" text:list-tab-stop-position="0.6cm" fo:text-indent="-0.5cm" fo:margin-left="0.6cm"/></style:list-level-properties>`;
  const level = ordered
    ? `<text:list-level-style-number text:level="1" style:num-suffix="." style:num-format="1">${props}</text:list-level-style-number>`
    : `<text:list-level-style-bullet text:level="1" text:bullet-char="•">${props}</text:list-level-style-bullet>`;
  return `<text:list-style style:name="${name}">${level}</text:list-style>`;
}

function block(b: Block, figure: string): string {
  switch (b.k) {
    case 'h':
      return `<text:h text:style-name="H${b.level}" text:outline-level="${b.level}">${esc(b.text)}</text:h>`;
    case 'p':
      return `<text:p text:style-name="Body">${esc(b.text)}</text:p>`;
    case 'ul':
    case 'ol':
      return `<text:list text:style-name="${b.k === 'ul' ? 'LB' : 'LN'}">${b.items.map((t) => `<text:list-item><text:p text:style-name="Body">${esc(t)}</text:p></text:list-item>`).join('')}</text:list>`;
    case 'formula':
      return `<text:p text:style-name="Center">${esc(b.plain)}</text:p>`;
    case 'table': {
      const cell = (c: string) =>
        `<table:table-cell table:style-name="TC" office:value-type="string"><text:p text:style-name="Cell">${esc(c)}</text:p></table:table-cell>`;
      return `<text:p text:style-name="Caption">${esc(b.caption)}</text:p><table:table table:name="T1" table:style-name="Tbl"><table:table-column table:number-columns-repeated="${b.rows[0].length}"/>${b.rows.map((r) => `<table:table-row>${r.map(cell).join('')}</table:table-row>`).join('')}</table:table>`;
    }
    case 'figure': {
      const w = b.wide ? 14 : 7.5;
      return `<text:p text:style-name="Center"><draw:frame draw:style-name="fr1" draw:name="fig" text:anchor-type="as-char" svg:width="${w}cm" svg:height="${w / 2}cm"><draw:image><office:binary-data>${figure}</office:binary-data></draw:image></draw:frame></text:p><text:p text:style-name="Caption">${esc(b.caption)}</text:p>`;
    }
  }
}

/** `figureBase64`: the figure PNG, embedded; `gutterMm`: the space between columns (8 mm by default). */
export function toFodt(d: Doc, figureBase64: string, gutterMm = 8): string {
  const styles = [
    `<style:default-style style:family="paragraph"><style:text-properties style:font-name="DejaVu Serif" fo:font-size="10pt" fo:language="en" fo:country="GB"/></style:default-style>`,
    pStyle('Body', 'fo:text-align="justify" fo:margin-bottom="0.15cm"', 'fo:font-size="10pt"'),
    pStyle('Title', 'fo:text-align="center" fo:margin-bottom="0.2cm"', 'fo:font-size="20pt" fo:font-weight="bold"'),
    pStyle('Author', 'fo:text-align="center" fo:margin-bottom="0.5cm"', 'fo:font-size="12pt"'),
    pStyle(
      'H2',
      'fo:margin-top="0.3cm" fo:margin-bottom="0.15cm" fo:keep-with-next="always"',
      'fo:font-size="13pt" fo:font-weight="bold"',
      ' style:default-outline-level="2"',
    ),
    pStyle(
      'H3',
      'fo:margin-top="0.2cm" fo:margin-bottom="0.1cm" fo:keep-with-next="always"',
      'fo:font-size="11pt" fo:font-weight="bold"',
      ' style:default-outline-level="3"',
    ),
    pStyle('Center', 'fo:text-align="center" fo:margin-bottom="0.15cm"', 'fo:font-size="10pt"'),
    pStyle('Caption', 'fo:text-align="center" fo:margin-bottom="0.15cm"', 'fo:font-size="9pt"'),
    pStyle('Cell', 'fo:text-align="start"', 'fo:font-size="9pt"'),
  ];
  const section = (name: string, balance: boolean) =>
    `<style:style style:name="${name}" style:family="section"><style:section-properties${balance ? '' : ' text:dont-balance-text-columns="true"'}><style:columns fo:column-count="${d.columns}" fo:column-gap="${gutterMm / 10}cm"/></style:section-properties></style:style>`;
  const auto = [
    `<style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" fo:margin-top="1.8cm" fo:margin-bottom="1.8cm" fo:margin-left="1.8cm" fo:margin-right="1.8cm"/></style:page-layout>`,
    section('SectB', true),
    section('SectU', false),
    `<style:style style:name="fr1" style:family="graphic"><style:graphic-properties style:wrap="none" style:vertical-pos="top" style:vertical-rel="baseline"/></style:style>`,
    `<style:style style:name="Tbl" style:family="table"><style:table-properties style:width="7.5cm" table:align="center"/></style:style>`,
    `<style:style style:name="TC" style:family="table-cell"><style:table-cell-properties fo:padding="0.05cm" fo:border="0.5pt solid #000000"/></style:style>`,
    listStyle('LB', false),
    listStyle('LN', true),
  ];
  const body: string[] = [
    `<text:p text:style-name="Title">${esc(d.title)}</text:p>`,
    `<text:p text:style-name="Author">${esc(d.author)}</text:p>`,
  ];
  const wideAt = d.blocks.findIndex((b) => b.k === 'figure' && b.wide);
  let sect = 0;
  const open = (last: boolean) =>
    body.push(`<text:section text:style-name="${last ? 'SectU' : 'SectB'}" text:name="S${++sect}">`);
  open(wideAt < 0);
  d.blocks.forEach((b, i) => {
    if (i === wideAt) {
      body.push('</text:section>', block(b, figureBase64));
      open(true);
    } else body.push(block(b, figureBase64));
  });
  body.push('</text:section>');
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document ${NS} office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:font-face-decls><style:font-face style:name="DejaVu Serif" svg:font-family="'DejaVu Serif'"/></office:font-face-decls>
<office:styles>${styles.join('')}</office:styles>
<office:automatic-styles>${auto.join('')}</office:automatic-styles>
<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1"/></office:master-styles>
<office:body><office:text>${body.join('\n')}</office:text></office:body></office:document>
`;
}
