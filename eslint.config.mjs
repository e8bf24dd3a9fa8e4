// The lint gate `npm test` runs (`npm run lint`): typescript-eslint's recommended rules, no import
// circles, no module imported twice in one file, and the room boundaries of ARCHITECTURE.md that
// a rule can keep (the extension and the webview reach the backend only through common/).
// Prettier owns formatting (.prettierrc.json); this file checks structure, not layout.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importPlugin from 'eslint-plugin-import';

/** Backend code the extension host and the webview must not import (they talk to it over JSON-RPC / postMessage). */
const BACKEND_ONLY = {
  patterns: [
    {
      regex: '^(\\.\\./)+server/',
      message:
        'src/ and media/ reach the backend only through common/ (protocol, errors, safe writes, view messages); see ARCHITECTURE.md.',
    },
  ],
};

/** common/ is imported by every side, so it imports none of them. */
const SHARED_ONLY = {
  patterns: [
    {
      regex: '^(\\.\\./)+(server|src|media)/',
      message: 'common/ imports no room of its own: it is the layer every side shares.',
    },
  ],
};

/** The backend and the CLI never reach into the extension host or the webview. */
const NO_EDITOR = {
  paths: [{ name: 'vscode', message: 'server/ runs without VS Code.' }],
  patterns: [
    { regex: '^(\\.\\./)+(src|media)/', message: 'server/ runs without VS Code: share code through common/.' },
  ],
};

/** pdf.js is read only inside server/pdf/ (issue 42): the other rooms take what it read as server/model/ data. */
const PDFJS_IN_PDF_ONLY = {
  regex: '^pdfjs-dist(/|$)',
  message: 'pdf.js is read only inside server/pdf/ (pdf/page.ts reads a page in one call); other rooms get its data.',
};
/** NO_EDITOR for every backend room but pdf/, which alone reads pdf.js. */
const SERVER_BASE = { paths: NO_EDITOR.paths, patterns: [...NO_EDITOR.patterns, PDFJS_IN_PDF_ONLY] };

/**
 * The backend's room rules (ARCHITECTURE.md, issue 33): every import runs down, from the rooms that
 * orchestrate to the rooms that compute, and the page's data model (server/model/) is the floor.
 * Each backend rule keeps NO_EDITOR's entries, since a later `no-restricted-imports` replaces an
 * earlier one for the same files.
 */
const ALL_SERVER_ROOMS = [
  'cli',
  'convert',
  'convertCommand',
  'doctags',
  'errors',
  'export',
  'flags',
  'html',
  'layout',
  'main',
  'mcp',
  'modelStore',
  'ocr',
  'office',
  'onnx',
  'pdf',
  'pipeline',
  'queue',
  'serve',
  'speculative',
  'util',
  'vlm',
  'worker',
];
/** The rooms that drive a conversion: no room they call imports them back. */
const ORCHESTRATORS = [
  'cli',
  'convert',
  'convertCommand',
  'export',
  'flags',
  'main',
  'mcp',
  'pipeline',
  'queue',
  'serve',
  'worker',
];
function serverRoomRule(forbidden, message, base = SERVER_BASE) {
  return {
    paths: base.paths,
    patterns: [...base.patterns, { regex: `^(\\.\\./)+(${forbidden.join('|')})(/|\\.ts$|$)`, message }],
  };
}
const BACKEND_ROOMS = [
  {
    files: ['server/model/**/*.ts'],
    rule: serverRoomRule(
      ALL_SERVER_ROOMS,
      'server/model/ is the floor: the page content and document items, importing only common/.',
    ),
  },
  {
    files: ['server/layout/**/*.ts'],
    rule: serverRoomRule(
      ALL_SERVER_ROOMS.filter((r) => r !== 'layout'),
      'layout/ is pure computation over server/model/ (no pdf.js, no I/O): it imports only model/ and common/.',
    ),
  },
  {
    files: ['server/doctags/**/*.ts', 'server/ocr/**/*.ts'],
    rule: serverRoomRule(
      [...ORCHESTRATORS, 'layout', 'vlm', 'speculative'],
      'pdf/, doctags/ and ocr/ sit below the pipeline and layout: share types through server/model/.',
    ),
  },
  {
    files: ['server/pdf/**/*.ts'],
    rule: serverRoomRule(
      [...ORCHESTRATORS, 'layout', 'vlm', 'speculative'],
      'pdf/, doctags/ and ocr/ sit below the pipeline and layout: share types through server/model/.',
      NO_EDITOR,
    ),
  },
  {
    files: ['server/office/**/*.ts'],
    rule: serverRoomRule(
      ALL_SERVER_ROOMS.filter((r) => !['model', 'errors', 'office', 'html'].includes(r)),
      'office/ reads documents born structured into server/model/ items: it imports only model/, errors.ts, html/ and common/.',
    ),
  },
  {
    files: ['server/html/**/*.ts'],
    rule: serverRoomRule(
      ALL_SERVER_ROOMS.filter((r) => !['model', 'office', 'html'].includes(r)),
      'html/ reads HTML into server/model/ items: it imports only model/, office/ (its types and text helpers) and common/.',
    ),
  },
  {
    files: ['server/speculative/**/*.ts'],
    rule: serverRoomRule(
      [...ORCHESTRATORS, 'vlm'],
      'speculative/ is below vlm/: vlm/ imports its seam (speculative/types.ts), never the other way.',
    ),
  },
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'out/**',
      'node_modules/**',
      'test/.artifacts/**',
      'eval/out/**',
      'bench/out/**',
      '.folio-cache/**',
      '**/*.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mjs'],
    plugins: { import: importPlugin },
    // The plugin follows imports only into files it can parse: TypeScript through typescript-eslint's parser.
    settings: {
      'import/resolver': { node: { extensions: ['.ts', '.mjs', '.js', '.json'] } },
      'import/extensions': ['.ts', '.mjs', '.js'],
      'import/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      // Circles come back after they are fixed unless a rule keeps them out.
      'import/no-cycle': ['error', { ignoreExternal: true }],
      'import/no-duplicates': ['error', { 'prefer-inline': true }],
      'no-duplicate-imports': 'off',
      // Long functions are a review signal, not an error: npm test fails only when their number grows (--max-warnings).
      'max-lines-per-function': ['warn', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
      // `_`-prefixed names are deliberately unused (callback signatures, destructured rests).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // Folio matches control characters on purpose: it strips or refuses them in untrusted text.
      'no-control-regex': 'off',
      // Empty catch blocks carry a comment saying why the error is dropped.
      'no-empty': ['error', { allowEmptyCatch: false }],
    },
  },
  { files: ['src/**/*.ts', 'media/**/*.ts'], rules: { 'no-restricted-imports': ['error', BACKEND_ONLY] } },
  // The extension's files stay small enough to read whole (issue 42): a file past 500 lines is split by concern.
  {
    files: ['src/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 500, skipBlankLines: false, skipComments: false }] },
  },
  { files: ['common/**/*.ts'], rules: { 'no-restricted-imports': ['error', SHARED_ONLY] } },
  // The protocol's requests and notifications are namespaces with `method` and `type` (vscode-eslint's
  // convention, as vscode-languageserver-protocol writes its own).
  { files: ['common/protocol.ts'], rules: { '@typescript-eslint/no-namespace': 'off' } },
  { files: ['server/**/*.ts'], ignores: ['server/pdf/**'], rules: { 'no-restricted-imports': ['error', SERVER_BASE] } },
  ...BACKEND_ROOMS.map(({ files, rule }) => ({ files, rules: { 'no-restricted-imports': ['error', rule] } })),
  // Test bodies are one `test(...)` callback per scenario; their length is the scenario's.
  // Tests read JSON answers (HTTP bodies, recorded requests) field by field: asserting on their shape is the test's job.
  { files: ['test/**/*.ts'], rules: { 'max-lines-per-function': 'off', '@typescript-eslint/no-explicit-any': 'off' } },
  // Node scripts run as plain ESM (esbuild.mjs): Node's globals.
  { files: ['**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } } },
);
