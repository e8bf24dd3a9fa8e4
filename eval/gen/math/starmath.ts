/**
 * The set's formulas (sources.ts) written by hand in LibreOffice Math's StarMath 5.0 language,
 * keyed by their LaTeX, for the LibreOffice Writer/Math producer. A formula without an entry
 * here is not typeset by LibreOffice (and is left out of that document's ground truth).
 * Hand-written rather than converted: StarMath has no `\begin{...}` environments, so matrices,
 * cases and aligned equations are re-expressed with `matrix{}` and brackets, as an author would.
 */
export const STARMATH: Record<string, string> = {
  // display
  '\\frac{a+b}{c-d}': '{a+b} over {c-d}',
  '\\frac{1}{1+\\frac{1}{x}}': '1 over {1+{1 over x}}',
  '\\sqrt{x^{2}+y^{2}}': 'sqrt{x^2+y^2}',
  '\\sqrt[3]{a+b}': 'nroot{3}{a+b}',
  '\\sum_{i=1}^{n} i=\\frac{n(n+1)}{2}': 'sum from{i=1} to{n} i = {n(n+1)} over 2',
  '\\prod_{k=1}^{N} (1-p_{k})': 'prod from{k=1} to{N} (1-p_k)',
  '\\int_{0}^{1} x^{2} dx=\\frac{1}{3}': 'int from{0} to{1} x^2 dx = 1 over 3',
  '\\alpha+\\beta=\\gamma': '%alpha + %beta = %gamma',
  'x\\leq y\\geq z\\neq w': 'x <= y >= z <> w',
  '\\sin^{2}\\theta+\\cos^{2}\\theta=1': 'sin^2 %theta + cos^2 %theta = 1',
  '\\log(xy)=\\log x+\\log y': 'log(xy) = log x + log y',
  '\\lim_{x\\to 0} \\frac{\\sin x}{x}=1': 'lim from{x toward 0} {sin x} over x = 1',
  'A=\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}': 'A = left( matrix{a # b ## c # d} right)',
  '\\begin{bmatrix} 1 & 0 & 0 \\\\ 0 & 1 & 0 \\\\ 0 & 0 & 1 \\end{bmatrix}':
    'left[ matrix{1 # 0 # 0 ## 0 # 1 # 0 ## 0 # 0 # 1} right]',
  '|x|=\\begin{cases} x & x\\geq 0 \\\\ -x & x<0 \\end{cases}':
    'abs x = left lbrace matrix{alignl x # alignl x >= 0 ## alignl -x # alignl x < 0} right none',
  '\\begin{aligned} f(x) &=(x+1)^{2} \\\\ &=x^{2}+2x+1 \\end{aligned}':
    'matrix{alignr f(x) # alignl {}=(x+1)^2 ## {} # alignl {}=x^2+2x+1}',
  '\\hat{x}+\\bar{y}=\\tilde{z}': 'hat x + bar y = tilde z',
  'x_{i}^{2}+y_{j}^{3}': 'x_i^2 + y_j^3',
  'e^{-x^{2}}': 'e^{-x^2}',
  'a\\times b\\cdot c': 'a times b cdot c',
  'A\\cup B\\subseteq C': 'A union B subseteq C',
  '\\frac{\\partial f}{\\partial x}=2x': '{partial f} over {partial x} = 2x',
  '\\nabla\\cdot E=\\frac{\\rho}{\\varepsilon_{0}}': 'nabla cdot E = %rho over %varepsilon_0',
  '\\sum_{n=1}^{\\infty} \\frac{1}{n^{2}}=\\frac{\\pi^{2}}{6}':
    'sum from{n=1} to{infinity} {1 over n^2} = {%pi^2} over 6',
  '\\mathrm{softmax}(z)_{i}=\\frac{e^{z_{i}}}{\\sum_{j} e^{z_{j}}}':
    'func softmax(z)_i = {e^{z_i}} over {sum from{j} e^{z_j}}',
  'P(A\\mid B)=\\frac{P(B\\mid A)P(A)}{P(B)}': 'P(A mline B) = {P(B mline A)P(A)} over {P(B)}',
  '\\binom{n}{k}=\\frac{n!}{k!(n-k)!}': 'left( binom{n}{k} right) = {n!} over {k!(n-k)!}',
  '\\max_{x\\in S} f(x)': 'max from{x in S} f(x)',
  // inline
  'x^{2}': 'x^2',
  'a_{n}': 'a_n',
  '\\alpha': '%alpha',
  'n\\geq 1': 'n >= 1',
  'O(n\\log n)': 'O(n log n)',
  '\\sqrt{2}': 'sqrt{2}',
  'f(x)=x+1': 'f(x) = x+1',
  'i-k\\times W': 'i-k times W',
  'e^{i\\pi}+1=0': 'e^{i %pi} + 1 = 0',
  'p<0.05': 'p < 0.05',
  '\\sum_{i} w_{i}': 'sum from{i} w_i',
  '\\theta': '%theta',
  // StarMath has no transpose symbol; U+22A4 as a character.
  'A^{\\top}': 'A^"⊤"',
  'h_{t-1}': 'h_{t-1}',
  '\\Delta t': '%DELTA t',
  'k=3': 'k = 3',
  'x\\to\\infty': 'x toward infinity',
  '\\beta_{1}': '%beta_1',
  '\\frac{1}{2}': '1 over 2',
  'x\\in S': 'x in S',
};
