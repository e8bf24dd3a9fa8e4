/**
 * `folio mcp`, `serve`, `worker`, `models` and `convert --queue` are bundled on their own
 * (dist/cli-<name>.js beside dist/cli.js, esbuild.mjs) and loaded when that command runs. The
 * servers, the queue and the MCP SDK (bullmq, fastify, ajv, zod, … : 5 of the 6.7 MB that
 * dist/cli.js was) are then neither read nor compiled by `folio convert`, whose whole process
 * time for a one-page PDF is what the start-up benchmark compares with pdf2md's
 * (`npm run bench -- --parts startup`, issue 22). The output formats other than Markdown and
 * DocTags (`export`: DoclingDocument, chunks with js-tiktoken's 1 MB of ranks, embedded pictures)
 * are loaded the same way, when a conversion asks for one.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export type CommandBundle = 'mcp' | 'serve' | 'worker' | 'models' | 'queue' | 'export';

export function commandBundle<T>(name: CommandBundle): T {
  const file = join(__dirname, `cli-${name}.js`);
  if (!existsSync(file))
    throw new Error(`${file} is missing beside ${join(__dirname, 'cli.js')}: rebuild Folio (npm run build)`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(file) as T;
}
