/**
 * The multi-column development set's documents (issue 15): a small document model, seeded
 * prose, and the documents themselves. Every producer (XeLaTeX, Chromium, LibreOffice) typesets
 * the same model, and the Markdown ground truth is written from it, so the truth is exact.
 * The prose is made of plain English words from a seeded generator: long enough paragraphs to
 * run over column and page breaks, with words long enough for LaTeX to hyphenate.
 */
import { mulberry32 as rng } from '../../../server/util/random';

export type Block =
  | { k: 'h'; level: 1 | 2 | 3; text: string }
  | { k: 'p'; text: string }
  | { k: 'ul' | 'ol'; items: string[] }
  | { k: 'table'; caption: string; rows: string[][] }
  | { k: 'formula'; latex: string; mathml: string; plain: string }
  | { k: 'figure'; caption: string; wide: boolean };

export interface Doc {
  name: string;
  title: string;
  author: string;
  /** Columns of the first band. */
  columns: number;
  blocks: Block[];
}

const WORDS = (
  'the a of and to in is that for on with as by this from at which are be it an or was not their these has its between more other can when each into than they were both only after most through under where also such while over within many however because during there against without however among several however ' +
  'measurement observation interpretation considerable experimental temperature distribution characteristic particularly significantly comparison transformation agricultural environmental administration representative understanding development relationship independent organization population information construction performance circumstances traditional instruments consequence approximately neighbouring surrounding responsibility opportunity accumulation extraordinary determination ' +
  'river village harbour mountain valley garden library window merchant traveller engineer surveyor committee letter report season winter summer morning evening weather journey bridge railway station market field orchard forest shore island lighthouse council record ledger account method sample figure table result value measure estimate pattern process system network model structure language history region century ' +
  'careful simple early later small large ancient modern northern southern narrow broad steady gradual uncertain reliable remarkable ordinary practical general local annual public private ' +
  'describes shows suggests follows requires remains appears becomes contains provides reduces increases compares explains records returns supports depends changes gives keeps leaves reaches'
)
  .split(/\s+/)
  .filter(Boolean);

/** Seeded, so every run typesets the same documents (the project's one generator). */
export { rng };

function pick<T>(r: () => number, xs: T[]): T {
  return xs[Math.floor(r() * xs.length)];
}

export function sentence(r: () => number, min = 8, max = 22): string {
  const n = min + Math.floor(r() * (max - min + 1));
  const w: string[] = [];
  for (let i = 0; i < n; i++) w.push(pick(r, WORDS));
  if (n > 12 && r() < 0.5) w[Math.floor(n / 2)] += ',';
  const s = w.join(' ');
  return s[0].toUpperCase() + s.slice(1) + '.';
}

export function paragraph(r: () => number, sentences: number): string {
  return Array.from({ length: sentences }, () => sentence(r)).join(' ');
}

function items(r: () => number, n: number): string[] {
  return Array.from({ length: n }, () => sentence(r, 4, 12).replace(/\.$/, ''));
}

function table(r: () => number, n: number): string[][] {
  const rows = [['Station', 'Samples', 'Mean', 'Error']];
  for (let i = 0; i < n; i++)
    rows.push([
      pick(r, ['North', 'South', 'Harbour', 'Valley', 'Ridge', 'Island', 'Forest']) + ' ' + (i + 1),
      String(10 + Math.floor(r() * 90)),
      (r() * 50).toFixed(1),
      (r() * 3).toFixed(2),
    ]);
  return rows;
}

const FORMULA = {
  latex: 'E = m c^{2} + \\alpha x',
  mathml:
    '<math display="block"><mi>E</mi><mo>=</mo><mi>m</mi><msup><mi>c</mi><mn>2</mn></msup><mo>+</mo><mi>α</mi><mi>x</mi></math>',
  plain: 'E = mc² + αx',
};

/** One document: `columns` per band, `seed` for its prose, `wide` puts a full-width figure mid-document. */
function makeDoc(name: string, seed: number, columns: number, sections: number, wide: boolean): Doc {
  const r = rng(seed);
  const blocks: Block[] = [];
  blocks.push({ k: 'p', text: paragraph(r, 5) });
  const titles = [
    'Introduction',
    'Observations along the river',
    'Method of the survey',
    'Results',
    'Discussion',
    'Records of the harbour',
    'Conclusion',
  ];
  for (let s = 1; s <= sections; s++) {
    blocks.push({ k: 'h', level: 2, text: `${s} ${titles[(s - 1) % titles.length]}` });
    blocks.push({ k: 'p', text: paragraph(r, 4 + Math.floor(r() * 5)) });
    // One long paragraph per section: it runs over a column break somewhere.
    blocks.push({ k: 'p', text: paragraph(r, 9 + Math.floor(r() * 4)) });
    if (s === 1) blocks.push({ k: 'ul', items: items(r, 3) });
    if (s === 2) {
      blocks.push({ k: 'h', level: 3, text: `${s}.1 ${pick(r, ['Instruments', 'Sampling', 'Records'])}` });
      blocks.push({ k: 'p', text: paragraph(r, 3) });
      blocks.push({ k: 'formula', ...FORMULA });
      blocks.push({ k: 'p', text: 'where ' + paragraph(r, 3).replace(/^./, (c) => c.toLowerCase()) });
      blocks.push({ k: 'ol', items: items(r, 3) });
    }
    if (s === 3) blocks.push({ k: 'table', caption: `Table 1: ${sentence(r, 4, 8)}`, rows: table(r, 4) });
    // A wide figure spans the page: the columns above it end, and new ones start below it.
    if (s === 2 && wide) blocks.push({ k: 'figure', caption: `Figure 1: ${sentence(r, 5, 10)}`, wide: true });
    blocks.push({ k: 'p', text: paragraph(r, 3 + Math.floor(r() * 4)) });
  }
  return {
    name,
    title:
      pick(r, ['A Survey of', 'Notes on', 'Records from', 'Observations of']) +
      ' ' +
      pick(r, ['the Northern Harbour', 'the River Valley', 'Two Villages', 'the Coastal Stations']),
    author: 'A. Writer and B. Reader',
    columns,
    blocks,
  };
}

/** The set: two-column documents (one with a full-width figure band), a three-column one. */
export function documents(quick = false): Doc[] {
  const all = [
    makeDoc('twocol-a', 11, 2, 4, false),
    makeDoc('twocol-b', 23, 2, 5, true),
    makeDoc('threecol', 37, 3, 5, true),
    makeDoc('twocol-c', 41, 2, 3, false),
  ];
  return quick ? all.slice(0, 2) : all;
}
