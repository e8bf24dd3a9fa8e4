/**
 * docling-core's JSON schemas as ajv validators: the contract every `--format docling` and
 * `--format chunks` output is checked against, on every surface (CLI, service, queue, MCP).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { doclingSchemaPath, repoRoot } from '../helpers/corpus';

/**
 * test/fixtures/docling/DoclingDocument-<version>.schema.json, minified copies of
 * docling-project/docling-core docs/DoclingDocument.json at v2.28.0 (schema 1.3.0, the one the
 * npm types @docling/docling-core 0.0.6 were generated from, docling 2.30) and at b7a4298
 * (v2.87.1+, schema 1.10.0).
 */
export const SCHEMA_VERSIONS = ['1.3.0', '1.10.0'] as const;

function compile(schema: object): (value: unknown) => string[] {
  // Formats (uri, path) are pydantic's annotations, not checked by docling either; strict off for them.
  // The version pattern uses Python's named groups `(?P<name>…)`; JavaScript writes `(?<name>…)`.
  const regExp = Object.assign(
    (pattern: string, flags?: string) => new RegExp(pattern.replace(/\(\?P</g, '(?<'), flags),
    { code: 'pythonRegExp' },
  );
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true, code: { regExp } });
  const validate: ValidateFunction = ajv.compile(schema);
  return (value) =>
    validate(value)
      ? []
      : (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
}

export function doclingValidator(version: (typeof SCHEMA_VERSIONS)[number]): (doc: unknown) => string[] {
  return compile(
    JSON.parse(
      readFileSync(join(repoRoot(), 'test', 'fixtures', 'docling', `DoclingDocument-${version}.schema.json`), 'utf8'),
    ),
  );
}

const shared = new Map<string, (value: unknown) => string[]>();
function sharedValidator(file: string): (value: unknown) => string[] {
  let v = shared.get(file);
  if (!v) {
    v = compile(JSON.parse(readFileSync(doclingSchemaPath(file), 'utf8')));
    shared.set(file, v);
  }
  return v;
}

/**
 * Errors of a DoclingDocument against docling-core 2.87.1's own schema (../shared/schemas, from
 * its pydantic model) and the published 1.3.0 and 1.10.0 schemas; empty when it is valid.
 */
export function doclingDocumentErrors(doc: unknown): string[] {
  const errors = sharedValidator('DoclingDocument.schema.json')(doc).map((e) => `docling-core 2.87.1: ${e}`);
  for (const v of SCHEMA_VERSIONS) errors.push(...doclingValidator(v)(doc).map((e) => `schema ${v}: ${e}`));
  return errors;
}

/**
 * Errors of one chunk (a parsed `--format chunks` line, or a `DocChunk` the service or MCP
 * server returns) against docling-core 2.87.1's `DocChunk` schema, which forbids any field a
 * `DocItem` does not declare in `meta.doc_items[]`, as `DocChunk.model_validate_json` does.
 */
export function docChunkErrors(chunk: unknown): string[] {
  return sharedValidator('DocChunk.schema.json')(chunk);
}

/** Every line of a chunks file (JSON Lines) validated; errors prefixed with the line number. */
export function docChunkLinesErrors(jsonl: string): string[] {
  const lines = jsonl.split('\n').filter((l) => l.trim());
  if (lines.length === 0) return ['no chunk lines'];
  return lines.flatMap((l, i) => docChunkErrors(JSON.parse(l)).map((e) => `line ${i + 1}: ${e}`));
}
