/**
 * The typeset math-and-tables set (issue 11): formulas and tables written once, as LaTeX and as
 * table cells, then typeset by several producers (eval/gen/math/producers.ts). The LaTeX here is
 * the ground truth the converters' output is compared with (after normalization, see
 * eval/metrics/latex.ts), so it is written as an author would: `\mathrm{}` for words in math,
 * subscripts before superscripts.
 */

export interface FormulaSrc {
  latex: string;
  display: boolean;
  /** What the formula exercises (reported per kind). */
  kind: string;
}

/** A table as rows of cells; `span` > 1 spans columns (header cells only). */
export interface TableCellSrc {
  text: string;
  span?: number;
}

export interface TableSrc {
  kind: string;
  caption?: string;
  /** Header rows (several: a multi-level header). */
  head: TableCellSrc[][];
  body: string[][];
  /** Column widths in cm for columns that wrap (LaTeX p{…}, HTML width). */
  wrap?: (number | undefined)[];
  /** Rules: booktabs (top/mid/bottom), only under the header, or none at all. */
  rules: 'booktabs' | 'header' | 'none';
  /** Column alignment (l, r, c). */
  align?: string;
}

export const DISPLAY: FormulaSrc[] = [
  { kind: 'fraction', display: true, latex: '\\frac{a+b}{c-d}' },
  { kind: 'nested fraction', display: true, latex: '\\frac{1}{1+\\frac{1}{x}}' },
  { kind: 'square root', display: true, latex: '\\sqrt{x^{2}+y^{2}}' },
  { kind: 'nth root', display: true, latex: '\\sqrt[3]{a+b}' },
  { kind: 'sum with limits', display: true, latex: '\\sum_{i=1}^{n} i=\\frac{n(n+1)}{2}' },
  { kind: 'product with limits', display: true, latex: '\\prod_{k=1}^{N} (1-p_{k})' },
  { kind: 'integral', display: true, latex: '\\int_{0}^{1} x^{2} dx=\\frac{1}{3}' },
  { kind: 'greek', display: true, latex: '\\alpha+\\beta=\\gamma' },
  { kind: 'relations', display: true, latex: 'x\\leq y\\geq z\\neq w' },
  { kind: 'function names', display: true, latex: '\\sin^{2}\\theta+\\cos^{2}\\theta=1' },
  { kind: 'function names', display: true, latex: '\\log(xy)=\\log x+\\log y' },
  { kind: 'limit', display: true, latex: '\\lim_{x\\to 0} \\frac{\\sin x}{x}=1' },
  { kind: 'matrix', display: true, latex: 'A=\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}' },
  { kind: 'matrix', display: true, latex: '\\begin{bmatrix} 1 & 0 & 0 \\\\ 0 & 1 & 0 \\\\ 0 & 0 & 1 \\end{bmatrix}' },
  { kind: 'cases', display: true, latex: '|x|=\\begin{cases} x & x\\geq 0 \\\\ -x & x<0 \\end{cases}' },
  { kind: 'aligned', display: true, latex: '\\begin{aligned} f(x) &=(x+1)^{2} \\\\ &=x^{2}+2x+1 \\end{aligned}' },
  { kind: 'accents', display: true, latex: '\\hat{x}+\\bar{y}=\\tilde{z}' },
  { kind: 'scripts', display: true, latex: 'x_{i}^{2}+y_{j}^{3}' },
  { kind: 'nested scripts', display: true, latex: 'e^{-x^{2}}' },
  { kind: 'operators', display: true, latex: 'a\\times b\\cdot c' },
  { kind: 'sets', display: true, latex: 'A\\cup B\\subseteq C' },
  { kind: 'partial derivative', display: true, latex: '\\frac{\\partial f}{\\partial x}=2x' },
  { kind: 'greek fraction', display: true, latex: '\\nabla\\cdot E=\\frac{\\rho}{\\varepsilon_{0}}' },
  { kind: 'sum of fractions', display: true, latex: '\\sum_{n=1}^{\\infty} \\frac{1}{n^{2}}=\\frac{\\pi^{2}}{6}' },
  { kind: 'words in math', display: true, latex: '\\mathrm{softmax}(z)_{i}=\\frac{e^{z_{i}}}{\\sum_{j} e^{z_{j}}}' },
  { kind: 'conditional', display: true, latex: 'P(A\\mid B)=\\frac{P(B\\mid A)P(A)}{P(B)}' },
  { kind: 'binomial', display: true, latex: '\\binom{n}{k}=\\frac{n!}{k!(n-k)!}' },
  { kind: 'max with limits', display: true, latex: '\\max_{x\\in S} f(x)' },
];

export const INLINE: FormulaSrc[] = [
  { kind: 'superscript', display: false, latex: 'x^{2}' },
  { kind: 'subscript', display: false, latex: 'a_{n}' },
  { kind: 'greek', display: false, latex: '\\alpha' },
  { kind: 'relation', display: false, latex: 'n\\geq 1' },
  { kind: 'function name', display: false, latex: 'O(n\\log n)' },
  { kind: 'square root', display: false, latex: '\\sqrt{2}' },
  { kind: 'equation', display: false, latex: 'f(x)=x+1' },
  { kind: 'operators', display: false, latex: 'i-k\\times W' },
  { kind: 'exponent', display: false, latex: 'e^{i\\pi}+1=0' },
  { kind: 'number', display: false, latex: 'p<0.05' },
  { kind: 'sum', display: false, latex: '\\sum_{i} w_{i}' },
  { kind: 'greek', display: false, latex: '\\theta' },
  { kind: 'transpose', display: false, latex: 'A^{\\top}' },
  { kind: 'subscript expression', display: false, latex: 'h_{t-1}' },
  { kind: 'greek', display: false, latex: '\\Delta t' },
  { kind: 'equation', display: false, latex: 'k=3' },
  { kind: 'arrow', display: false, latex: 'x\\to\\infty' },
  { kind: 'subscript', display: false, latex: '\\beta_{1}' },
  { kind: 'fraction', display: false, latex: '\\frac{1}{2}' },
  { kind: 'set membership', display: false, latex: 'x\\in S' },
];

/** Sentences that carry the inline formulas (one formula each, `@` marks where). */
export const INLINE_SENTENCES = [
  'The square @ grows fast.',
  'Each term @ is positive.',
  'The rate @ is small.',
  'We assume @ throughout.',
  'Sorting takes @ comparisons.',
  'The ratio @ is irrational.',
  'Let @ be the line.',
  'Positions up to @ are seen.',
  "Euler's identity @ is famous.",
  'The result holds with @ in every run.',
  'The weighted sum @ is normalized.',
  'The angle @ is measured in radians.',
  'The transpose @ is used below.',
  'The previous state @ is kept.',
  'A step @ is taken each time.',
  'We take @ neighbours.',
  'The limit @ is taken last.',
  'The decay @ is fixed.',
  'Half of it, @, is kept.',
  'For every @ the bound holds.',
];

export const TABLES: TableSrc[] = [
  {
    kind: 'booktabs numeric',
    caption: 'Table 1: Accuracy by model.',
    rules: 'booktabs',
    align: 'lrrr',
    head: [[{ text: 'Model' }, { text: 'Params' }, { text: 'MMLU' }, { text: 'GSM8K' }]],
    body: [
      ['Baseline', '7B', '44.4', '16.0'],
      ['Large', '13B', '55.6', '34.3'],
      ['Windowed', '7B', '60.1', '52.2'],
    ],
  },
  {
    kind: 'booktabs multi-level header',
    caption: 'Table 2: Scores on two tasks.',
    rules: 'booktabs',
    align: 'lrrrr',
    head: [
      [{ text: '' }, { text: 'Reading', span: 2 }, { text: 'Writing', span: 2 }],
      [{ text: 'System' }, { text: 'P' }, { text: 'R' }, { text: 'P' }, { text: 'R' }],
    ],
    body: [
      ['Alpha', '0.81', '0.77', '0.65', '0.70'],
      ['Beta', '0.85', '0.79', '0.69', '0.72'],
      ['Gamma', '0.88', '0.83', '0.71', '0.75'],
    ],
  },
  {
    kind: 'booktabs wrapped cells',
    caption: 'Table 3: Methods compared.',
    rules: 'booktabs',
    align: 'llr',
    wrap: [undefined, 5, undefined],
    head: [[{ text: 'Method' }, { text: 'Description' }, { text: 'Cost' }]],
    body: [
      ['Greedy', 'Takes the best choice at each step without looking back at earlier choices', '1.0'],
      ['Beam', 'Keeps several partial answers and extends the most promising ones', '4.5'],
      ['Sampling', 'Draws each token at random from the model distribution', '1.2'],
    ],
  },
  {
    kind: 'booktabs empty cells',
    caption: 'Table 4: Results with missing runs.',
    rules: 'booktabs',
    align: 'lrrr',
    head: [[{ text: 'Dataset' }, { text: 'Run 1' }, { text: 'Run 2' }, { text: 'Run 3' }]],
    body: [
      ['Train', '12.5', '', '13.1'],
      ['Valid', '10.2', '11.4', ''],
      ['Test', '', '9.8', '10.0'],
    ],
  },
  {
    kind: 'booktabs row groups',
    caption: 'Table 5: Latency by device.',
    rules: 'booktabs',
    align: 'llr',
    head: [[{ text: 'Device' }, { text: 'Mode' }, { text: 'ms' }]],
    body: [
      ['CPU', 'batch', '120'],
      ['', 'stream', '95'],
      ['GPU', 'batch', '14'],
      ['', 'stream', '11'],
    ],
  },
  {
    kind: 'booktabs decimal',
    caption: 'Table 6: Measured values.',
    rules: 'booktabs',
    align: 'lr',
    head: [[{ text: 'Quantity' }, { text: 'Value' }]],
    body: [
      ['Mass', '1.5'],
      ['Length', '12.25'],
      ['Time', '100.125'],
      ['Speed', '0.75'],
    ],
  },
  {
    kind: 'no rules with caption',
    caption: 'Table 7: Cities and their populations.',
    rules: 'none',
    align: 'lrr',
    head: [[{ text: 'City' }, { text: 'Population' }, { text: 'Area' }]],
    body: [
      ['Lyon', '522000', '48'],
      ['Nantes', '320000', '65'],
      ['Lille', '236000', '35'],
      ['Nice', '342000', '72'],
    ],
  },
  {
    kind: 'no rules',
    rules: 'none',
    align: 'llr',
    head: [[{ text: 'Name' }, { text: 'Role' }, { text: 'Years' }]],
    body: [
      ['Ada', 'Engineer', '5'],
      ['Ben', 'Designer', '3'],
      ['Chloe', 'Manager', '8'],
    ],
  },
  {
    kind: 'header rule only',
    caption: 'Table 9: Error rates.',
    rules: 'header',
    align: 'lrr',
    head: [[{ text: 'Setting' }, { text: 'Error' }, { text: 'Time' }]],
    body: [
      ['Small', '4.2', '10'],
      ['Medium', '3.1', '25'],
      ['Large', '2.7', '61'],
    ],
  },
  {
    kind: 'booktabs broken header',
    caption: 'Table 10: Throughput.',
    rules: 'booktabs',
    align: 'lrr',
    wrap: [undefined, 1.6, 1.6],
    head: [[{ text: 'Backend' }, { text: 'Tokens per second' }, { text: 'Peak memory' }]],
    body: [
      ['ONNX', '812', '1.2'],
      ['WebGPU', '1530', '1.9'],
      ['CUDA', '4210', '2.4'],
    ],
  },
];
