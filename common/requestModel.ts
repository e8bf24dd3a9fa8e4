/**
 * What a conversion request can say, declared once: the output formats and the conversion options
 * every surface shares. docling's `OutputFormat` (datamodel/base_models.py) and
 * `pipeline_options.py` are the shape, and `LIMIT_RANGES` (protocol.ts) the precedent.
 *
 * The surfaces read these tables: the command line's flag groups (server/flags/groups.ts), the
 * backend's parameter check (server/convert/checkParams.ts), the service's option schema and
 * OpenAPI document (server/serve/options.ts, openapi.ts, doclingOptions.ts), the MCP tool's schema
 * (server/mcp/convertPdf.ts), the extension's configuration (src/context.ts) and the one output
 * dispatcher (server/export/output.ts `renderOutput`). What cannot read them — package.json's
 * `contributes.configuration` — is held to them by test/unit/requestModel.test.ts, which fails
 * when any surface disagrees.
 *
 * Adding a format or an option: one entry here plus its implementation (ARCHITECTURE.md, "Say it
 * once", has a worked example). This file imports nothing, so every room may read it.
 */

/** The surfaces that offer a format to choose. */
export type FormatSurface = 'cli' | 'mcp' | 'extension';

export interface OutputFormatSpec {
  /**
   * The spelled-out name, accepted everywhere the short one is. The MCP tool and the extension's
   * `folio.outputFormat` show it (their users' settings and calls name `markdown`); the command
   * line, `folio/export` and the service show the short name.
   */
  readonly alias?: string;
  /** The output file beside the source is `<name><ext>`. */
  readonly ext: string;
  /**
   * What the output is built from: the conversion summary's own text (`summary`), the summary
   * with its page results attached (`summary+pages`), or the page results through server/export
   * (`pages`; also the only formats `folio/export` takes).
   */
  readonly from: 'summary' | 'summary+pages' | 'pages';
  /** Where a user can ask for it. */
  readonly surfaces: readonly FormatSurface[];
  /** One line for the help and the docs. */
  readonly doc: string;
}

/** In the command line's order (its help and its messages list them so). */
export const OUTPUT_FORMATS = {
  md: {
    alias: 'markdown',
    ext: '.md',
    from: 'summary',
    surfaces: ['cli', 'mcp', 'extension'],
    doc: 'Markdown',
  },
  doctags: {
    ext: '.doctags.txt',
    from: 'summary',
    surfaces: ['cli', 'mcp', 'extension'],
    doc: "the document's DocTags",
  },
  // `.folio-result.json`, not `.json`: a PDF often has other JSON beside it (docling's ground truth
  // in the shared corpus does) that a conversion must not overwrite.
  json: {
    ext: '.folio-result.json',
    from: 'summary+pages',
    surfaces: ['cli'],
    doc: "Folio's own result: the summary and every page's regions",
  },
  docling: {
    ext: '.docling.json',
    from: 'pages',
    surfaces: ['cli', 'mcp', 'extension'],
    doc: 'DoclingDocument JSON',
  },
  chunks: {
    ext: '.chunks.jsonl',
    from: 'pages',
    surfaces: ['cli', 'mcp', 'extension'],
    doc: 'retrieval chunks, JSON Lines (docs/formats.md)',
  },
} as const satisfies Record<string, OutputFormatSpec>;

export type OutputFormat = keyof typeof OUTPUT_FORMATS;

/** The format a conversion writes when none is named. */
export const DEFAULT_OUTPUT_FORMAT = 'md' satisfies OutputFormat;

/** The formats server/export renders from page results (what `folio/export` accepts). */
export type PagesFormat = {
  [K in OutputFormat]: (typeof OUTPUT_FORMATS)[K]['from'] extends 'pages' ? K : never;
}[OutputFormat];

/** Whether a format is rendered from page results (by server/export, or `folio/export` for the extension). */
export function isPagesFormat(f: OutputFormat): f is PagesFormat {
  return OUTPUT_FORMATS[f].from === 'pages';
}

/** A format under the name a surface shows: the spelled-out one where there is one, except on the command line. */
type Shown<K extends OutputFormat, S extends FormatSurface> = S extends 'cli'
  ? K
  : (typeof OUTPUT_FORMATS)[K] extends { alias: infer A extends string }
    ? A
    : K;

/** The names of the formats a surface offers, as it shows them. */
export type FormatName<S extends FormatSurface> = {
  [K in OutputFormat]: S extends (typeof OUTPUT_FORMATS)[K]['surfaces'][number] ? Shown<K, S> : never;
}[OutputFormat];

const FORMAT_KEYS = Object.keys(OUTPUT_FORMATS) as OutputFormat[];

function specOf(f: OutputFormat): OutputFormatSpec {
  return OUTPUT_FORMATS[f];
}

/** The formats `surface` offers, as it shows them, in the table's order. */
export function formatNames<S extends FormatSurface>(surface: S): FormatName<S>[] {
  return FORMAT_KEYS.filter((f) => specOf(f).surfaces.includes(surface)).map(
    (f) => (surface === 'cli' ? f : (specOf(f).alias ?? f)) as FormatName<S>,
  );
}

/** Every name a surface accepts: what it shows, and the other spelling of each. */
export function acceptedFormatNames(surface: FormatSurface): string[] {
  return FORMAT_KEYS.filter((f) => specOf(f).surfaces.includes(surface)).flatMap((f) => {
    const alias = specOf(f).alias;
    return alias ? [f, alias] : [f];
  });
}

/** The format a name or alias stands for; undefined for none. */
export function outputFormatOf(name: string): OutputFormat | undefined {
  if (Object.hasOwn(OUTPUT_FORMATS, name)) return name as OutputFormat;
  return FORMAT_KEYS.find((f) => specOf(f).alias === name);
}

// ---- Conversion options ----

/** One of a list of words. */
export interface ChoiceSpec<C extends string = string> {
  readonly kind: 'choice';
  readonly choices: readonly C[];
  readonly default: C;
  readonly doc: string;
}

/** A number in a closed range (fractions allowed). */
export interface RangeSpec {
  readonly kind: 'range';
  readonly min: number;
  readonly max: number;
  readonly default: number;
  readonly doc: string;
}

/** On or off. */
export interface SwitchSpec {
  readonly kind: 'switch';
  readonly default: boolean;
  readonly doc: string;
}

export type OptionSpec = ChoiceSpec | RangeSpec | SwitchSpec;

const choice = <const C extends string>(choices: readonly C[], dflt: NoInfer<C>, doc: string): ChoiceSpec<C> => ({
  kind: 'choice',
  choices,
  default: dflt,
  doc,
});
const range = (min: number, max: number, dflt: number, doc: string): RangeSpec => ({
  kind: 'range',
  min,
  max,
  default: dflt,
  doc,
});
const onOff = (dflt: boolean, doc: string): SwitchSpec => ({ kind: 'switch', default: dflt, doc });

/**
 * The conversion options a user sets on every surface (`ConvertOptions` fields of the same name;
 * the paths, providers and remote VLM settings are each surface's own). Each surface spells the
 * name its way — `--layout-prior`, `layout_prior`, `folio.vlm.layoutPrior` — and reads the rest
 * from here.
 */
export const CONVERT_OPTIONS = {
  engine: choice(['pipeline', 'vlm'], 'pipeline', 'the engine: pipeline (built in) or vlm (granite-docling)'),
  ocr: choice(['auto', 'always', 'never'], 'auto', 'OCR: pages without a usable text layer, every page, or none'),
  scale: range(0.25, 8, 2, 'render scale of page images, 1 = 72 dpi'),
  layoutPrior: choice(['auto', 'on', 'off'], 'off', 'VLM layout prior in the prompt'),
  speculation: choice(
    ['auto', 'off', 'page', 'hsd'],
    'auto',
    "VLM decoding with the pipeline's drafts (auto: per provider; off: plain greedy)",
  ),
  keepFurniture: onOff(false, 'keep page headers and footers in the Markdown'),
  keepHiddenText: onOff(false, 'keep text a reader of the page cannot see (docs/text-layer.md)'),
} as const;

export type ConvertOptionName = keyof typeof CONVERT_OPTIONS;

/** The value type of a choice option. */
export type ChoiceOf<K extends ConvertOptionName> = (typeof CONVERT_OPTIONS)[K] extends ChoiceSpec<infer C> ? C : never;

/** "pipeline (default) or vlm": a choice's words in order, the default marked. */
export function choiceList(spec: ChoiceSpec, opts: { markDefault?: boolean } = {}): string {
  const words = spec.choices.map((c) => (opts.markDefault !== false && c === spec.default ? `${c} (default)` : c));
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}` : words.join('');
}

/** The problem with `v` as a value of `spec`, in the words checkParams reports; undefined when it fits. */
export function optionProblem(spec: OptionSpec, v: unknown): string | undefined {
  switch (spec.kind) {
    case 'choice':
      return typeof v === 'string' && (spec.choices as readonly string[]).includes(v)
        ? undefined
        : `must be one of ${spec.choices.join(', ')}`;
    case 'range':
      return typeof v === 'number' && Number.isFinite(v) && v >= spec.min && v <= spec.max
        ? undefined
        : `must be a number from ${spec.min} to ${spec.max}`;
    case 'switch':
      return typeof v === 'boolean' ? undefined : 'must be true or false';
  }
}

/** The JSON schema of an option's value (the service's options and its OpenAPI document). */
export function optionSchema(spec: OptionSpec): Record<string, unknown> {
  switch (spec.kind) {
    case 'choice':
      return { type: 'string', enum: [...spec.choices] };
    case 'range':
      return { type: 'number', minimum: spec.min, maximum: spec.max };
    case 'switch':
      return { type: 'boolean' };
  }
}
