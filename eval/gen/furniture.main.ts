/**
 * Single-page furniture fixtures (issue 15): one journal page pulled out of its issue, typeset by
 * XeLaTeX (fancyhdr running heads, eso-pic margin stamps) and by Chromium (positioned header,
 * footer and a rotated stamp), with a running head, a page number, a "Downloaded from …" stamp
 * under the footer and an "Accepted manuscript" stamp turned up the left margin. Ground truth is
 * the body only. Writes test/fixtures/furniture/page.{xelatex,chromium}.pdf and page.md:
 *   node out/scripts/eval/gen/furniture.main.js
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../repo';

const HEAD_LEFT = 'Journal of River Studies 12 (2026) 101–118';
const HEAD_RIGHT = 'R. Writer and B. Reader';
const PAGE = '104';
const DOWNLOADED = 'Downloaded from https://rivers.example.org/article/12/104 on 3 May 2026';
const SIDE = 'Accepted manuscript. Not the version of record.';
const HEADING = '2 Observations along the river';
const PARAS = [
  'Harbour increases accumulation model simple report to mountain, language requires island surveyor harbour independent surrounding. Returns century against circumstances approximately describes southern harbour many over process. Winter shore approximately changes such later careful approximately, library steady annual evening from during remains. Depends record accumulation extraordinary was organization narrow however process from the temperature.',
  'To window consequence while particularly lighthouse representative when over while each garden through practical however. Library contains field organization orchard gradual has characteristic, leaves as journey during estimate as. Later interpretation is steady consequence structure under however they. They independent valley careful appears among report depends railway agricultural public gives traveller.',
  'Relationship reaches when from merchant also uncertain account approximately at council interpretation particularly committee relationship forest estimate other. However history that approximately an northern window to leaves practical uncertain, reduces it record council garden mountain small neighbouring agricultural. Letter explains while returns accumulation broad of and river market after history modern it observation several distribution.',
];

function latex(): string {
  const esc = (s: string) => s.replace(/[&%$#_{}]/g, (c) => `\\${c}`).replace(/–/g, '--');
  return `\\documentclass[11pt]{article}
\\usepackage[a4paper,margin=2.5cm,headsep=1cm]{geometry}
\\usepackage{fontspec}
\\usepackage{fancyhdr}
\\usepackage{eso-pic}
\\usepackage{graphicx}
\\usepackage{url}
\\pagestyle{fancy}
\\fancyhf{}
\\fancyhead[L]{\\small ${esc(HEAD_LEFT)}}
\\fancyhead[R]{\\small ${esc(HEAD_RIGHT)}}
\\fancyfoot[C]{\\small ${PAGE}}
\\renewcommand{\\headrulewidth}{0.4pt}
\\AddToShipoutPictureBG{%
  \\AtPageLowerLeft{\\put(\\LenToUnit{2.5cm},\\LenToUnit{0.8cm}){\\scriptsize ${esc(DOWNLOADED)}}}%
  \\AtPageLowerLeft{\\put(\\LenToUnit{1.2cm},\\LenToUnit{10cm}){\\rotatebox{90}{\\scriptsize ${esc(SIDE)}}}}}
\\begin{document}
\\section*{${esc(HEADING)}}
${PARAS.map(esc).join('\n\n')}
\\end{document}
`;
}

function html(): string {
  return `<!doctype html><html><head><meta charset="utf-8"><style>
@page { size: A4; margin: 0 }
body { margin: 0; font-family: 'DejaVu Serif', serif; }
.page { position: relative; width: 210mm; height: 296mm; }
.head { position: absolute; top: 14mm; left: 25mm; right: 25mm; font-size: 9pt; display: flex; justify-content: space-between; border-bottom: 0.4pt solid #000; padding-bottom: 2pt; }
.body { position: absolute; top: 32mm; left: 25mm; right: 25mm; font-size: 11pt; line-height: 1.35; text-align: justify; }
h2 { font-size: 14pt; margin: 0 0 8pt; }
p { margin: 0 0 8pt; }
.foot { position: absolute; bottom: 16mm; left: 0; right: 0; text-align: center; font-size: 9pt; }
.dl { position: absolute; bottom: 7mm; left: 25mm; font-size: 7pt; }
.side { position: absolute; left: 12mm; top: 200mm; transform: rotate(-90deg); transform-origin: left top; font-size: 7pt; white-space: nowrap; }
</style></head><body><div class="page">
<div class="head"><span>${HEAD_LEFT}</span><span>${HEAD_RIGHT}</span></div>
<div class="body"><h2>${HEADING}</h2>${PARAS.map((p) => `<p>${p}</p>`).join('')}</div>
<div class="foot">${PAGE}</div>
<div class="dl">${DOWNLOADED}</div>
<div class="side">${SIDE}</div>
</div></body></html>`;
}

function main(): void {
  const out = join(repoRoot(), 'test', 'fixtures', 'furniture');
  mkdirSync(out, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'folio-furniture-'));
  try {
    writeFileSync(join(work, 'page.tex'), latex());
    execFileSync('xelatex', ['-interaction=nonstopmode', '-halt-on-error', 'page.tex'], {
      cwd: work,
      stdio: 'pipe',
      timeout: 120_000,
    });
    renameSync(join(work, 'page.pdf'), join(out, 'page.xelatex.pdf'));
    writeFileSync(join(work, 'page.html'), html());
    execFileSync(
      'chromium',
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        `--user-data-dir=${join(work, 'profile')}`,
        '--no-pdf-header-footer',
        `--print-to-pdf=${join(work, 'page.pdf')}`,
        `file://${join(work, 'page.html')}`,
      ],
      { cwd: work, stdio: 'pipe', timeout: 120_000 },
    );
    renameSync(join(work, 'page.pdf'), join(out, 'page.chromium.pdf'));
    writeFileSync(join(out, 'page.md'), `## ${HEADING}\n\n${PARAS.join('\n\n')}\n`);
    console.log(`wrote ${out}/page.{xelatex,chromium}.pdf and page.md`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main();
