/**
 * OOXML parts as small element trees, through saxes (a strict, namespace-aware XML parser from
 * npm; Folio writes no XML tokenizer). Hostile XML is refused before it can do harm: a DOCTYPE
 * (and with it every internal or external entity, the "billion laughs" and XXE) is an error, and
 * saxes itself knows only the five predefined entities and character references, so no file and
 * no URL is ever read on an entity's behalf.
 *
 * Element names are written with a canonical prefix per namespace (`w:p`, `a:t`, `m:oMath`), so
 * a part that binds other prefixes, or ISO 29500 Strict's namespace URIs, reads the same.
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

/** Thrown for XML Folio refuses or cannot read; the caller names the file. */
export class XmlRefused extends Error {}

/** Namespace URI → the prefix Folio's readers use (Transitional and Strict OOXML, DrawingML, VML). */
const PREFIXES: Record<string, string> = {
  'http://schemas.openxmlformats.org/wordprocessingml/2006/main': 'w',
  'http://purl.oclc.org/ooxml/wordprocessingml/main': 'w',
  'http://schemas.openxmlformats.org/drawingml/2006/main': 'a',
  'http://purl.oclc.org/ooxml/drawingml/main': 'a',
  'http://schemas.openxmlformats.org/officeDocument/2006/relationships': 'r',
  'http://purl.oclc.org/ooxml/officeDocument/relationships': 'r',
  'http://schemas.openxmlformats.org/package/2006/relationships': 'rel',
  'http://schemas.openxmlformats.org/officeDocument/2006/math': 'm',
  'http://purl.oclc.org/ooxml/officeDocument/math': 'm',
  'http://schemas.openxmlformats.org/presentationml/2006/main': 'p',
  'http://purl.oclc.org/ooxml/presentationml/main': 'p',
  'http://schemas.openxmlformats.org/spreadsheetml/2006/main': 's',
  'http://purl.oclc.org/ooxml/spreadsheetml/main': 's',
  'http://schemas.openxmlformats.org/drawingml/2006/picture': 'pic',
  'http://purl.oclc.org/ooxml/drawingml/picture': 'pic',
  'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing': 'wp',
  'http://purl.oclc.org/ooxml/drawingml/wordprocessingDrawing': 'wp',
  'http://schemas.microsoft.com/office/word/2010/wordprocessingShape': 'wps',
  'http://schemas.microsoft.com/office/word/2010/wordprocessingGroup': 'wpg',
  'http://schemas.openxmlformats.org/markup-compatibility/2006': 'mc',
  'http://schemas.openxmlformats.org/drawingml/2006/chart': 'c',
  'http://purl.oclc.org/ooxml/drawingml/chart': 'c',
  'http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing': 'xdr',
  'http://purl.oclc.org/ooxml/drawingml/spreadsheetDrawing': 'xdr',
  'urn:schemas-microsoft-com:vml': 'v',
  'http://schemas.openxmlformats.org/package/2006/content-types': 'ct',
  'http://schemas.microsoft.com/office/spreadsheetml/2018/threadedcomments': 'tc',
};

/** Most elements one part may hold: a 30 MB part of empty elements is no document. */
const MAX_ELEMENTS = 5_000_000;

function canonical(tag: { prefix: string; local: string; uri: string }): string {
  const p = PREFIXES[tag.uri] ?? tag.prefix;
  return p ? `${p}:${tag.local}` : tag.local;
}

/** Parses one XML part into its root element; DOCTYPEs, unknown entities and malformed XML throw `XmlRefused`. */
export function parseXml(text: string): XmlElement {
  const parser = new SaxesParser({ xmlns: true, position: false });
  const root: XmlElement = { name: '#document', attrs: {}, children: [] };
  const stack: XmlElement[] = [root];
  let count = 0;
  let failure: Error | undefined;
  parser.on('doctype', () => {
    throw new XmlRefused('it declares a DOCTYPE (DTDs and entities are refused)');
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    if (++count > MAX_ELEMENTS) throw new XmlRefused(`more than ${MAX_ELEMENTS} elements`);
    const attrs: Record<string, string> = {};
    for (const a of Object.values(tag.attributes)) {
      if (a.prefix === 'xmlns' || a.name === 'xmlns') continue;
      attrs[a.uri ? canonical(a) : a.local] = a.value;
    }
    const el: XmlElement = { name: canonical(tag), attrs, children: [] };
    stack[stack.length - 1].children.push(el);
    stack.push(el);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.on('text', (t: string) => {
    if (stack.length > 1) stack[stack.length - 1].children.push(t);
  });
  parser.on('cdata', (t: string) => {
    if (stack.length > 1) stack[stack.length - 1].children.push(t);
  });
  parser.on('error', (e: Error) => {
    failure ??= e;
  });
  try {
    parser.write(text).close();
  } catch (e) {
    if (e instanceof XmlRefused) throw e;
    throw new XmlRefused(`it is not well-formed XML (${(e as Error).message.split('\n')[0]})`);
  }
  if (failure) throw new XmlRefused(`it is not well-formed XML (${failure.message.split('\n')[0]})`);
  const top = root.children.find((c): c is XmlElement => typeof c !== 'string');
  if (!top) throw new XmlRefused('it holds no XML element');
  return top;
}

/** Child elements, optionally only those named `name`. */
export function kids(el: XmlElement | undefined, name?: string): XmlElement[] {
  if (!el) return [];
  const out: XmlElement[] = [];
  for (const c of el.children) if (typeof c !== 'string' && (name === undefined || c.name === name)) out.push(c);
  return out;
}

/** The first child element named `name`. */
export function kid(el: XmlElement | undefined, name: string): XmlElement | undefined {
  if (!el) return undefined;
  for (const c of el.children) if (typeof c !== 'string' && c.name === name) return c;
  return undefined;
}

/** Follows a path of child names (`kidPath(p, 'w:pPr', 'w:pStyle')`). */
export function kidPath(el: XmlElement | undefined, ...names: string[]): XmlElement | undefined {
  let cur = el;
  for (const n of names) cur = kid(cur, n);
  return cur;
}

/** Every descendant element named `name`, in document order (not below a match). */
export function descendants(el: XmlElement, name: string, out: XmlElement[] = []): XmlElement[] {
  for (const c of el.children) {
    if (typeof c === 'string') continue;
    if (c.name === name) out.push(c);
    else descendants(c, name, out);
  }
  return out;
}

/** All text below an element (text nodes only). */
export function textOf(el: XmlElement | undefined): string {
  if (!el) return '';
  let s = '';
  for (const c of el.children) s += typeof c === 'string' ? c : textOf(c);
  return s;
}
