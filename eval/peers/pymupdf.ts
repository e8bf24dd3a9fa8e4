/** PyMuPDF text extraction (Debian python3-fitz, run with the system Python that has it). */
import { execFileSync } from 'node:child_process';
import { runBatch } from './batchScript';
import type { Peer } from './types';

const SCRIPT = `
import sys, json, time, os
import fitz
d, lst = sys.argv[1], sys.argv[2]
for i, f in json.load(open(lst)):
    t0 = time.perf_counter()
    try:
        doc = fitz.open(f)
        text = "\\f".join(page.get_text() for page in doc)
        open(os.path.join(d, "%d.txt" % i), "w", encoding="utf-8").write(text)
        print(json.dumps({"i": i, "ms": (time.perf_counter() - t0) * 1000}), flush=True)
    except Exception as e:
        print(json.dumps({"i": i, "ms": (time.perf_counter() - t0) * 1000, "error": str(e).split("\\n")[0]}), flush=True)
`;

/** The Debian python3 first: a pyenv or venv python on PATH usually lacks fitz. */
function python(): string | undefined {
  for (const p of ['/usr/bin/python3', 'python3']) {
    try {
      execFileSync(p, ['-c', 'import fitz'], { stdio: 'ignore' });
      return p;
    } catch {
      /* next */
    }
  }
  return undefined;
}

export function pymupdfPeer(): Peer {
  let py: string | undefined | null = null;
  const find = () => (py === null ? (py = python()) : py);
  return {
    name: 'PyMuPDF',
    format: 'text',
    unavailable: () =>
      find() ? undefined : 'PyMuPDF is not installed: install Debian python3-fitz (apt-get install -y python3-fitz)',
    convertAll: (pdfs, workDir, opts) =>
      runBatch({ cmd: find() ?? 'python3', args: ['-c', SCRIPT] }, pdfs, workDir, opts),
  };
}
