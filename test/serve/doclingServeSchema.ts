/**
 * docling-serve's response models as ajv validators: pydantic's own JSON Schema of docling's
 * `docling/datamodel/service/responses.py` (docling e1cb2b2 = v2.121.0, what docling-serve 1.31.0
 * answers with and docling-client validates with), written by scripts/docling-serve-schema.py
 * into test/fixtures/docling-serve/responses-docling-2.121.0.schema.json. An answer these reject
 * is one docling-client reports as `ResponseSchemaMismatchError`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { repoRoot } from '../helpers/corpus';

export const SERVE_SCHEMA_FILE = join(
  repoRoot(),
  'test',
  'fixtures',
  'docling-serve',
  'responses-docling-2.121.0.schema.json',
);

export interface ServeSchema {
  $defs: Record<string, { enum?: string[] } & Record<string, unknown>>;
}

export function serveSchema(): ServeSchema {
  return JSON.parse(readFileSync(SERVE_SCHEMA_FILE, 'utf8')) as ServeSchema;
}

/** A validator of one model of the schema (`ConvertDocumentResponse`, `ErrorItem`, …): the errors, or []. */
export function serveValidator(model: string): (value: unknown) => string[] {
  // The version pattern of DoclingDocument uses Python's named groups `(?P<name>…)`.
  const regExp = Object.assign(
    (pattern: string, flags?: string) => new RegExp(pattern.replace(/\(\?P</g, '(?<'), flags),
    { code: 'pythonRegExp' },
  );
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true, code: { regExp } });
  const schema = serveSchema();
  if (!schema.$defs[model]) throw new Error(`${SERVE_SCHEMA_FILE} has no model ${model}`);
  const validate = ajv.compile({ ...schema, $ref: `#/$defs/${model}` });
  return (value) =>
    validate(value)
      ? []
      : (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
}
