/**
 * Issue 42 item 1: what a request can say is declared once (common/requestModel.ts), and every
 * surface agrees with it. Each surface is run, not read: the command line's flags read values,
 * the backend's check and the service's schemas accept or refuse them, the MCP tool's schema
 * parses format names, the extension's settings reader and package.json's declared settings give
 * the table's choices, ranges and defaults. A surface that writes its own list or range fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CONVERT_OPTIONS,
  OUTPUT_FORMATS,
  acceptedFormatNames,
  formatNames,
  outputFormatOf,
  type OptionSpec,
  type OutputFormat,
} from '../../common/requestModel';
import { summaryOutput } from '../../common/summaryOutput';
import type { ConvertSummary } from '../../common/protocol';
import { ENGINE_FLAGS, OUTPUT_FLAGS } from '../../server/flags/groups';
import { parseConvertArgs } from '../../server/convertCommand/args';
import { checkOptions } from '../../server/convert/checkParams';
import { checkExportParams } from '../../server/export/checkExportParams';
import { renderOutput, needsPages } from '../../server/export/output';
import { OPTIONS_SCHEMA, parseApiOptions, toConvertOptions } from '../../server/serve/options';
import { readOptions } from '../../server/serve/doclingOptions';
import { completeOpenApi } from '../../server/serve/openapi';
import { inputSchema as mcpInput } from '../../server/mcp/convertPdf';
import { readConfig, OUTPUT_FORMATS as EXTENSION_FORMATS } from '../../src/settings';
import { repoRoot } from '../helpers/corpus';

/** The option's flag on the command line, its field in the service's API, its setting in package.json. */
const SURFACE_NAMES = {
  engine: { flag: 'engine', api: 'engine', setting: 'folio.engine' },
  ocr: { flag: 'ocr', api: 'ocr', setting: 'folio.ocr' },
  scale: { flag: 'scale', api: 'scale', setting: 'folio.renderScale' },
  layoutPrior: { flag: 'layout-prior', api: 'layout_prior', setting: 'folio.vlm.layoutPrior' },
  speculation: { flag: 'speculation', api: undefined, setting: 'folio.vlm.speculation' },
  keepFurniture: { flag: 'keep-furniture', api: 'keep_furniture', setting: 'folio.keepPageHeaders' },
  keepHiddenText: { flag: 'keep-hidden-text', api: 'keep_hidden_text', setting: 'folio.keepHiddenText' },
} as const satisfies Record<keyof typeof CONVERT_OPTIONS, { flag: string; api?: string; setting: string }>;

const OPTIONS = Object.entries(CONVERT_OPTIONS) as [keyof typeof CONVERT_OPTIONS, OptionSpec][];

/** Values the option takes, and values just outside it. */
function samples(spec: OptionSpec): { good: unknown[]; bad: unknown[] } {
  switch (spec.kind) {
    case 'choice':
      return { good: [...spec.choices], bad: ['', 'none-of-these', spec.choices[0].toUpperCase()] };
    case 'range':
      return { good: [spec.min, spec.default, spec.max], bad: [spec.min - 0.01, spec.max + 0.01, NaN] };
    case 'switch':
      return { good: [true, false], bad: ['yes', 1] };
  }
}

const packageSettings = (): Record<string, Record<string, unknown>> => {
  const pkg = JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, Record<string, unknown>> }[] | object };
  };
  const conf = pkg.contributes.configuration;
  return Object.assign(
    {},
    ...(Array.isArray(conf) ? conf : [conf]).map((c) => (c as { properties: object }).properties),
  ) as Record<string, Record<string, unknown>>;
};

test('the command line: each option flag takes exactly the table’s values and has its default', () => {
  const flags = ENGINE_FLAGS as Record<
    string,
    { default: unknown; arg?: string; read: (t: string, f: string, p: unknown) => unknown }
  >;
  for (const [key, spec] of OPTIONS) {
    const flag = flags[SURFACE_NAMES[key].flag];
    assert.ok(flag, `--${SURFACE_NAMES[key].flag} is declared`);
    if (spec.kind === 'switch') {
      assert.equal(flag.arg, undefined, `--${SURFACE_NAMES[key].flag} is a switch`);
      assert.equal(flag.default, spec.default);
      continue;
    }
    assert.equal(flag.default, spec.default, `--${SURFACE_NAMES[key].flag}'s default`);
    const { good, bad } = samples(spec);
    for (const v of good) assert.equal(flag.read(String(v), `--${key}`, undefined), v);
    for (const v of bad) assert.throws(() => flag.read(String(v), `--${key}`, undefined), `--${key} ${v} is refused`);
  }
  // What `folio convert` does with no flag is the table's default.
  const args = parseConvertArgs(['a.pdf']);
  assert.deepEqual(
    [args.engine, args.ocr, args.scale, args.layoutPrior, args.speculation, args.keepFurniture, args.keepHiddenText],
    OPTIONS.map(([, spec]) => spec.default),
  );
});

test('the backend’s parameter check accepts the table’s values and refuses the rest, with the range in the message', () => {
  for (const [key, spec] of OPTIONS) {
    const { good, bad } = samples(spec);
    for (const v of good) assert.equal(checkOptions({ [key]: v }), undefined, `${key} ${String(v)}`);
    for (const v of bad) assert.match(checkOptions({ [key]: v }) ?? '', new RegExp(`^options\\.${key} must`));
  }
  assert.equal(checkOptions({ scale: 8.01 }), 'options.scale must be a number from 0.25 to 8');
});

test('the service: its option schema, its OpenAPI document and docling-serve’s images_scale follow the table', () => {
  const openapi = completeOpenApi({ paths: {} }).components.schemas.ConvertDocumentsOptions.properties;
  for (const [key, spec] of OPTIONS) {
    const api = SURFACE_NAMES[key].api;
    if (!api) continue;
    const schema = OPTIONS_SCHEMA.properties[api as keyof typeof OPTIONS_SCHEMA.properties] as Record<string, unknown>;
    const documented = openapi[api] as Record<string, unknown>;
    for (const s of [schema, documented]) {
      if (spec.kind === 'choice') assert.deepEqual(s.enum, [...spec.choices], `${api} choices`);
      if (spec.kind === 'range') assert.deepEqual([s.minimum, s.maximum], [spec.min, spec.max], `${api} range`);
      if (spec.kind === 'switch') assert.equal(s.type, 'boolean');
    }
    const { good, bad } = samples(spec);
    for (const v of good) assert.doesNotThrow(() => parseApiOptions({ [api]: v }), `${api} ${String(v)}`);
    // Form fields are coerced ("1" is true), so only the choices and the range have values to refuse.
    if (spec.kind === 'switch') continue;
    for (const v of bad.filter((b) => !Number.isNaN(b)))
      assert.throws(() => parseApiOptions({ [api]: v }), `${api} ${String(v)} is refused`);
  }
  // A request that names nothing gets the table's defaults.
  const dflt = toConvertOptions({}, {});
  assert.equal(dflt.engine, CONVERT_OPTIONS.engine.default);
  assert.equal(dflt.ocr, CONVERT_OPTIONS.ocr.default);
  assert.equal(dflt.scale, CONVERT_OPTIONS.scale.default);
  assert.equal(dflt.layoutPrior, CONVERT_OPTIONS.layoutPrior.default);
  assert.equal(dflt.keepFurniture, CONVERT_OPTIONS.keepFurniture.default);
  const { min, max, default: d } = CONVERT_OPTIONS.scale;
  assert.equal(openapi.images_scale.minimum, min);
  assert.equal(openapi.images_scale.maximum, max);
  assert.equal(openapi.images_scale.default, d);
  assert.equal(readOptions({ images_scale: max }, false).api.scale, max);
  assert.throws(() => readOptions({ images_scale: max + 0.5 }, false), /images_scale" must be a number from 0.25 to 8/);
});

test('the extension: package.json’s settings and the settings reader give the table’s choices, ranges and defaults', () => {
  const settings = packageSettings();
  for (const [key, spec] of OPTIONS) {
    const s = settings[SURFACE_NAMES[key].setting];
    assert.ok(s, `${SURFACE_NAMES[key].setting} is declared`);
    assert.equal(s.default, spec.default, `${SURFACE_NAMES[key].setting}'s default`);
    if (spec.kind === 'choice') assert.deepEqual(s.enum, [...spec.choices], `${SURFACE_NAMES[key].setting}'s choices`);
    if (spec.kind === 'range')
      assert.deepEqual([s.minimum, s.maximum], [spec.min, spec.max], `${SURFACE_NAMES[key].setting}'s range`);
  }
  // The reader as VS Code calls it: the declared default when the user set nothing.
  const declared = { get: (k: string, fallback?: unknown) => settings[`folio.${k}`]?.default ?? fallback };
  const fromPackage = readConfig(declared as never, '/models');
  // …and with nothing declared at all: its own fallbacks are the table's too.
  const fromFallbacks = readConfig({ get: (_k: string, fallback?: unknown) => fallback } as never, '/models');
  for (const c of [fromPackage, fromFallbacks]) {
    assert.deepEqual(
      [c.engine, c.ocr, c.renderScale, c.layoutPrior, c.speculation, c.keepPageHeaders, c.keepHiddenText],
      OPTIONS.map(([, spec]) => spec.default),
    );
    assert.equal(outputFormatOf(c.outputFormat), 'md');
  }
  // folio.outputFormat offers the formats the table offers the extension, under the names it shows.
  const fmt = settings['folio.outputFormat'];
  assert.deepEqual([...(fmt.enum as string[])].sort(), [...formatNames('extension')].sort());
  assert.deepEqual([...EXTENSION_FORMATS].sort(), [...formatNames('extension')].sort());
  assert.equal((fmt.enumDescriptions as string[]).length, (fmt.enum as string[]).length);
  for (const [i, name] of (fmt.enum as string[]).entries()) {
    const f = outputFormatOf(name)!;
    assert.ok((OUTPUT_FORMATS[f].surfaces as readonly string[]).includes('extension'));
    assert.match((fmt.enumDescriptions as string[])[i], new RegExp(OUTPUT_FORMATS[f].ext.replace(/\./g, '\\.')));
  }
});

test('formats: the CLI, the MCP tool and folio/export take exactly the table’s names', () => {
  const format = OUTPUT_FLAGS.format;
  for (const f of Object.keys(OUTPUT_FORMATS) as OutputFormat[]) {
    assert.equal(format.read(f, '--format', undefined), f);
    const alias = (OUTPUT_FORMATS[f] as { alias?: string }).alias;
    if (alias) assert.equal(format.read(alias, '--format', undefined), f, `--format ${alias}`);
  }
  assert.throws(
    () => format.read('html', '--format', undefined),
    /--format must be md, doctags, json, docling or chunks/,
  );
  assert.equal(format.default, 'md');

  const mcp = mcpInput.format;
  for (const name of acceptedFormatNames('mcp')) assert.equal(mcp.parse(name), name);
  for (const f of Object.keys(OUTPUT_FORMATS) as OutputFormat[])
    assert.equal(mcp.safeParse(f).success, (OUTPUT_FORMATS[f].surfaces as readonly string[]).includes('mcp'), f);
  assert.equal(mcp.safeParse('html').success, false);

  const pagesFormats = (Object.keys(OUTPUT_FORMATS) as OutputFormat[]).filter(
    (f) => OUTPUT_FORMATS[f].from === 'pages',
  );
  assert.deepEqual(pagesFormats, ['docling', 'chunks']);
  for (const f of Object.keys(OUTPUT_FORMATS)) {
    const problem = checkExportParams({ uri: '/tmp/a.pdf', format: f, pages: [] });
    if (pagesFormats.includes(f as OutputFormat)) assert.equal(problem, undefined, f);
    else assert.equal(problem, 'format: must be one of docling, chunks', f);
  }
});

test('renderOutput builds each format from what the table says: the summary, or the pages through the exporter', () => {
  const summary = { markdown: '# M\n', doctags: '<doctag></doctag>', pages: [] } as unknown as ConvertSummary;
  for (const f of Object.keys(OUTPUT_FORMATS) as OutputFormat[]) {
    let exported = false;
    const out = renderOutput(
      { format: f, summary, pdfPath: '/x.pdf', pages: [], images: 'none', imagesBaseDir: '/', keepFurniture: false },
      () => (req) => {
        exported = true;
        assert.equal(req.format, f);
        return { text: 'from pages', warnings: [] };
      },
    );
    assert.equal(exported, OUTPUT_FORMATS[f].from === 'pages', f);
    if (!exported) assert.equal(out.text, summaryOutput(f as 'md' | 'doctags' | 'json', summary));
    assert.equal(needsPages(f, 'link'), OUTPUT_FORMATS[f].from !== 'summary');
  }
  // Markdown with embedded pictures reads the pages' crops.
  let embedded = false;
  renderOutput(
    { format: 'md', summary, pdfPath: '/x.pdf', pages: [], images: 'embed', imagesBaseDir: '/', keepFurniture: false },
    () => () => ((embedded = true), { text: '', warnings: [] }),
  );
  assert.ok(embedded);
  assert.equal(summaryOutput('doctags', summary), '<doctag></doctag>\n');
});
