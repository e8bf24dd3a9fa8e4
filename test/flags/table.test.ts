/**
 * The one flag table (server/flags): every command's help lists every flag it reads; a bad value
 * is the one `UsageError` (kind `input`, exit code 2) with the flag's own message; a flag shared
 * by several commands reads the same in each; argv is checked in the order typed. The commands'
 * own parsers are called as the CLI calls them, and `folio <command>` is run for the exit codes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CONVERT_FLAGS, CONVERT_USAGE, parseConvertArgs } from '../../server/convertCommand/args';
import { parseServeArgs, SERVE_FLAGS, SERVE_USAGE } from '../../server/serve/serveCommand';
import { parseWorkerArgs, WORKER_FLAGS, WORKER_USAGE } from '../../server/queue/workerCommand';
import { MCP_FLAGS, MCP_USAGE, parseMcpArgs } from '../../server/mcp/args';
import { MODELS_FLAGS, MODELS_USAGE } from '../../server/cli/models';
import { LIMIT_FLAGS, QUEUE_FLAGS, RUN_FLAGS, VLM_FLAGS } from '../../server/flags/groups';
import { parseFlags, type FlagTable } from '../../server/flags/table';
import { EXIT_CODES } from '../../server/exitCodes';
import { isFolioError, kindOf, UsageError } from '../../server/errors';
import { repoRoot } from '../helpers/corpus';

const COMMANDS: [string, FlagTable, string][] = [
  ['convert', CONVERT_FLAGS, CONVERT_USAGE],
  ['serve', SERVE_FLAGS, SERVE_USAGE],
  ['worker', WORKER_FLAGS, WORKER_USAGE],
  ['mcp', MCP_FLAGS, MCP_USAGE],
  ['models', MODELS_FLAGS, MODELS_USAGE],
];

/** The error `fn` throws, checked to be the one usage error. */
function usageError(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof UsageError, `a UsageError, not ${String(e)}`);
    assert.ok(isFolioError(e));
    assert.equal(kindOf(e), 'input');
    assert.equal(EXIT_CODES[kindOf(e)], 2);
    return e;
  }
  assert.fail('no error thrown');
}

test("each command's help lists every flag of its table, with its value's name, once", () => {
  for (const [name, table, usage] of COMMANDS) {
    const keys = Object.keys(table);
    assert.ok(keys.length >= 5, `${name}: a table of its flags`);
    for (const [flag, f] of Object.entries(table)) {
      const entry = new RegExp(
        `^ {2}(-${f.short}, )? *--${flag}${f.arg ? ` ${f.arg.replace(/[|]/g, '\\|')}` : ''}( |$)`,
        'm',
      );
      assert.match(usage, entry, `${name} --help lists --${flag}`);
    }
  }
});

test("each group's flags are in every command that takes the group, under the same declaration", () => {
  for (const [group, commands] of [
    [VLM_FLAGS, ['convert', 'serve', 'worker']],
    [LIMIT_FLAGS, ['convert', 'mcp']],
    [RUN_FLAGS, ['convert', 'mcp']],
  ] as const) {
    for (const [name, table] of COMMANDS.filter(([n]) => (commands as readonly string[]).includes(n)))
      for (const [flag, decl] of Object.entries(group)) assert.equal(table[flag], decl, `${name} --${flag}`);
  }
  // A command may give a shared flag its own default and help, never its own check.
  for (const table of [SERVE_FLAGS, WORKER_FLAGS]) assert.equal(table['max-pages'].read, LIMIT_FLAGS['max-pages'].read);
  assert.equal(SERVE_FLAGS.redis.read, QUEUE_FLAGS.redis.read);
  assert.equal(WORKER_FLAGS.redis.read, QUEUE_FLAGS.redis.read);
  assert.equal(SERVE_FLAGS.jobs.read, RUN_FLAGS.jobs.read);
});

test('a shared flag reads the same in every command: same values, same refusals, same words', () => {
  const lan = 'http://gpu-host.lan:8000/v1';
  const refusal =
    /^--vlm-url http:\/\/gpu-host\.lan:8000\/v1 is refused: plain http:\/\/ is accepted only to this machine/;
  assert.match(usageError(() => parseConvertArgs(['a.pdf', '--vlm-url', lan])).message, refusal);
  assert.match(usageError(() => parseWorkerArgs(['--redis', 'redis://x', '--vlm-url', lan])).message, refusal);
  // serve took any URL here before (each conversion refused it later): now it does not start.
  assert.match(usageError(() => parseServeArgs(['--vlm-url', lan], {})).message, refusal);
  const ok = 'http://127.0.0.1:8000/v1';
  assert.equal(parseConvertArgs(['a.pdf', '--vlm-url', ok]).vlmUrl, ok);
  assert.equal(parseWorkerArgs(['--redis', 'redis://x', '--vlm-url', ok]).own.remoteVlm?.url, ok);
  assert.equal(parseServeArgs(['--vlm-url', ok], {}).base.remoteVlm?.url, ok);

  const pages = /^--max-pages must be a whole number from 1 to 1000000, not 0$/;
  assert.match(usageError(() => parseConvertArgs(['a.pdf', '--max-pages', '0'])).message, pages);
  assert.match(usageError(() => parseMcpArgs(['d', '--max-pages', '0'])).message, pages);
  assert.match(usageError(() => parseWorkerArgs(['--redis', 'redis://x', '--max-pages', '0'])).message, pages);
  assert.match(usageError(() => parseServeArgs(['--max-pages', '0'], {})).message, pages);
  // serve cut 2.5 to 2 before; the one declaration takes whole numbers only.
  assert.match(
    usageError(() => parseServeArgs(['--max-pages', '2.5'], {})).message,
    /--max-pages must be a whole number/,
  );
  assert.equal(parseConvertArgs(['a.pdf', '--max-pages', '7']).limits.maxPages, 7);
  assert.equal(parseMcpArgs(['d', '--max-pages=7']).limits.maxPages, 7);
  assert.equal(parseWorkerArgs(['--redis', 'redis://x', '--max-pages', '7']).maxPages, 7);
  assert.equal(parseServeArgs(['--max-pages', '7'], {}).maxPages, 7);
  // Each command keeps its own default.
  assert.equal(parseConvertArgs(['a.pdf']).limits.maxPages, undefined);
  assert.equal(parseWorkerArgs(['--redis', 'redis://x']).maxPages, 10000);
  assert.equal(parseServeArgs([], {}).maxPages, 2000);

  const jobs = /^--jobs takes a whole number from 1 to 64$/;
  for (const bad of ['0', '65', '2.5', 'many']) {
    assert.match(usageError(() => parseConvertArgs(['a.pdf', '--jobs', bad])).message, jobs);
    assert.match(usageError(() => parseServeArgs(['--jobs', bad], {})).message, jobs);
    assert.match(usageError(() => parseMcpArgs(['d', '--jobs', bad])).message, jobs);
  }
  assert.equal(parseConvertArgs(['a.pdf', '--jobs', '3']).jobs, 3);
  assert.equal(parseServeArgs(['--jobs', '3'], {}).jobs, 3);
  assert.equal(parseMcpArgs(['d', '--jobs', '3']).jobs, 3);

  assert.equal(parseConvertArgs(['a.pdf', '--range-pages', '4']).rangePages, 4);
  assert.equal(parseServeArgs(['--range-pages', '4'], {}).rangePages, 4);
  for (const read of [
    () => parseConvertArgs(['a.pdf', '--range-pages', '0']),
    () => parseServeArgs(['--range-pages', '0'], {}),
  ])
    assert.match(usageError(read).message, /^--range-pages takes a whole number from 1 to 10000$/);

  for (const read of [
    () => parseServeArgs(['--redis', 'http://x'], {}),
    () => parseWorkerArgs(['--redis', 'http://x']),
  ])
    assert.match(usageError(read).message, /not a Redis URL/);
  for (const read of [
    () => parseConvertArgs(['a.pdf', '--engine', 'gpu']),
    () => parseServeArgs(['--engine', 'gpu'], {}),
  ])
    assert.equal(usageError(read).message, '--engine must be pipeline or vlm, not "gpu"');
  // --models: a folder, made absolute, in each command; an empty one is refused in each.
  assert.equal(parseConvertArgs(['a.pdf', '--models', 'm']).models, join(process.cwd(), 'm'));
  assert.equal(parseServeArgs(['--models', 'm'], {}).base.modelsDir, join(process.cwd(), 'm'));
  assert.equal(parseWorkerArgs(['--redis', 'redis://x', '--models', 'm']).own.modelsDir, join(process.cwd(), 'm'));
  for (const read of [
    () => parseConvertArgs(['a.pdf', '--models', '']),
    () => parseServeArgs(['--models', ''], {}),
    () => parseWorkerArgs(['--redis', 'redis://x', '--models', '']),
  ])
    assert.equal(usageError(read).message, '--models needs a folder');
});

test('strict reading: unknown flags, missing values, switches with a value; the first problem in argv order', () => {
  assert.equal(usageError(() => parseConvertArgs(['a.pdf', '--bogus'])).message, 'unknown option --bogus');
  assert.equal(usageError(() => parseConvertArgs(['a.pdf', '--bogus=1'])).message, 'unknown option --bogus=1');
  assert.equal(usageError(() => parseServeArgs(['stray'], {})).message, 'unknown option stray');
  assert.equal(usageError(() => parseConvertArgs(['a.pdf', '--pages'])).message, '--pages needs a value');
  assert.equal(usageError(() => parseConvertArgs(['a.pdf', '-o', '--force'])).message, '--output needs a value');
  assert.equal(parseConvertArgs(['a.pdf', '--output=--odd.md']).output, '--odd.md');
  assert.equal(usageError(() => parseConvertArgs(['a.pdf', '--force=yes'])).message, '--force takes no value');
  // Two problems: the one typed first is reported, as the hand-written parsers did.
  assert.match(
    usageError(() => parseConvertArgs(['a.pdf', '--format', 'docx', '--bogus'])).message,
    /^--format must be/,
  );
  assert.match(usageError(() => parseConvertArgs(['a.pdf', '--bogus', '--format', 'docx'])).message, /^unknown option/);
  // Short flags, `=` values, the bare legacy --images, and `--` before a file named like a flag.
  const a = parseConvertArgs(['-q', '--images', 'embed', '-o', 'x.md', '--format=json', '--', '-odd.pdf']);
  assert.deepEqual([a.quiet, a.pictures, a.output, a.format, a.inputs], [true, 'embed', 'x.md', 'json', ['-odd.pdf']]);
  const b = parseConvertArgs(['--images', 'a.pdf']);
  assert.deepEqual([b.images, b.pictures, b.inputs], [true, 'link', ['a.pdf']]);
  // A repeatable flag appends; the others keep the last value.
  const s = parseServeArgs(['--allow-host', 'A.example', '--allow-host=b.example', '--port', '1', '--port', '2'], {});
  assert.deepEqual(s.allowedHosts, ['a.example', 'b.example']);
  assert.equal(s.port, 2);
  assert.deepEqual(parseServeArgs([], {}).allowedHosts, [], 'a fresh list each time');
  // The reader itself, on a table of its own.
  const { values, positionals } = parseFlags({ n: { ...RUN_FLAGS.jobs, short: 'n' }, ...LIMIT_FLAGS }, [
    'x',
    '-n',
    '5',
    'y',
    '--max-page-memory=64',
  ]);
  assert.deepEqual(values, {
    n: 5,
    'max-document-seconds': undefined,
    'max-page-memory': 64,
    'max-pages': undefined,
    'max-cells': undefined,
  });
  assert.deepEqual(positionals, ['x', 'y']);
});

test('folio <command>: a usage error exits 2 with its message, from the main bundle and from each command bundle', () => {
  const cli = join(repoRoot(), 'dist', 'cli.js');
  const run = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', input: '' });
  for (const [args, message] of [
    [['convert', 'a.pdf', '--jobs', '0'], 'folio: --jobs takes a whole number from 1 to 64\n'],
    [['serve', '--jobs', '0'], 'folio: --jobs takes a whole number from 1 to 64\n'],
    [
      ['worker', '--redis', 'redis://127.0.0.1:1', '--max-pages', '0'],
      'folio: --max-pages must be a whole number from 1 to 1000000, not 0\n',
    ],
    [['serve', '--vlm-url', 'http://gpu-host.lan/v1'], /^folio: --vlm-url http:\/\/gpu-host\.lan\/v1 is refused/],
    [['mcp', '.', '--jobs', '0'], /^folio mcp: --jobs takes a whole number from 1 to 64\nusage: folio mcp/],
    [['models', 'list', '--dtype', 'fp64'], /^folio models: --dtype must be one of fp32/],
    [['nonsense'], 'folio: unknown command "nonsense" (try folio --help)\n'],
  ] as const) {
    const r = run(...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    if (typeof message === 'string') assert.equal(r.stderr, message);
    else assert.match(r.stderr, message);
  }
  for (const [name, , usage] of COMMANDS.filter(([n]) => n !== 'models')) {
    const r = run(name, '--help');
    assert.equal(r.status, 0);
    assert.equal(r.stdout, usage + '\n', `folio ${name} --help prints the table's help`);
  }
});
