/**
 * Where the shared corpus of real PDFs lives: `FOLIO_CORPUS`, else `../shared/corpus` beside
 * the checkout. A test that needs it fails with this message instead of skipping.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The repository root: the nearest folder above this bundle whose package.json is Folio's. */
export function repoRoot(): string {
  let dir = __dirname;
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).name === 'folio') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`no Folio package.json above ${__dirname}`);
    dir = up;
  }
}

export function corpusRoot(): string {
  const root = process.env.FOLIO_CORPUS ?? resolve(repoRoot(), '..', 'shared', 'corpus');
  if (!existsSync(join(root, 'MANIFEST.tsv'))) {
    throw new Error(
      `Folio's shared corpus was not found at ${root}. Clone the project beside ../shared or set FOLIO_CORPUS to the corpus folder.`,
    );
  }
  return root;
}

export function corpusPath(rel: string): string {
  return join(corpusRoot(), rel);
}

/**
 * docling-core's JSON Schemas in the shared folder (`FOLIO_SCHEMAS`, else
 * `../shared/schemas/docling-core-2.87.1` beside the checkout): the contract every Docling-shaped
 * output is checked against. A test that needs them fails with this message instead of skipping.
 */
export function doclingSchemaPath(file: string): string {
  const root = process.env.FOLIO_SCHEMAS ?? resolve(repoRoot(), '..', 'shared', 'schemas', 'docling-core-2.87.1');
  const path = join(root, file);
  if (!existsSync(path)) {
    throw new Error(
      `docling-core's JSON Schema ${file} was not found in ${root}. Clone the project beside ../shared or set FOLIO_SCHEMAS to the folder holding DoclingDocument.schema.json and DocChunk.schema.json.`,
    );
  }
  return path;
}
