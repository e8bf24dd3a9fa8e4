/** docling-core's published JSON schemas (docs/DoclingDocument.json at two tags) as ajv validators. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { repoRoot } from '../helpers/corpus';

/**
 * test/fixtures/docling/DoclingDocument-<version>.schema.json, minified copies of
 * docling-project/docling-core docs/DoclingDocument.json at v2.28.0 (schema 1.3.0, the one the
 * npm types @docling/docling-core 0.0.6 were generated from, docling 2.30) and at b7a4298
 * (v2.87.1+, schema 1.10.0).
 */
export const SCHEMA_VERSIONS = ['1.3.0', '1.10.0'] as const;

export function doclingValidator(version: (typeof SCHEMA_VERSIONS)[number]): (doc: unknown) => string[] {
  const schema = JSON.parse(
    readFileSync(join(repoRoot(), 'test', 'fixtures', 'docling', `DoclingDocument-${version}.schema.json`), 'utf8'),
  );
  // Formats (uri, path) are pydantic's annotations, not checked by docling either; strict off for them.
  // The version pattern uses Python's named groups `(?P<name>…)`; JavaScript writes `(?<name>…)`.
  const regExp = Object.assign(
    (pattern: string, flags?: string) => new RegExp(pattern.replace(/\(\?P</g, '(?<'), flags),
    { code: 'pythonRegExp' },
  );
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true, code: { regExp } });
  const validate = ajv.compile(schema);
  return (doc) =>
    validate(doc)
      ? []
      : (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
}
