// `npm run lint`. The layer rules (which folder may import which) are the ones docs/architecture.md draws.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The layers of src/, top to bottom (docs/architecture.md): a file may import its own layer and the
// ones below it. Type-only imports may go up (the wiring's AppContext, the tables a schema lists).
// Every other folder of src/ is a feature: a new one is under the layer rules from its first file.
const NOT_FEATURES = new Set(['cli', 'http', 'lib', 'platform', 'posthog', 'sdk']);
const FEATURES = readdirSync(new URL('./src', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !NOT_FEATURES.has(entry.name))
  .map((entry) => entry.name);
const ENTRY = ['**/cli/**', '**/app.js', '**/server.js', '**/context.js', '**/config.js'];
const folders = (names) => names.map((name) => `**/${name}/**`);
const LAYERS = [
  { name: 'features', files: FEATURES.map((name) => `src/${name}/**`), above: [...ENTRY, '**/sdk/**'] },
  { name: 'http', files: ['src/http/**'], above: [...ENTRY, '**/sdk/**', ...folders(FEATURES)] },
  { name: 'posthog', files: ['src/posthog/**'], above: [...ENTRY, '**/sdk/**', ...folders(FEATURES), '**/http/**'] },
  { name: 'platform', files: ['src/platform/**'], above: [...ENTRY, '**/sdk/**', ...folders(FEATURES), '**/http/**', '**/posthog/**'] },
  { name: 'lib', files: ['src/lib/**'], above: ['../**'] },
];
const layerRules = LAYERS.map((layer) => ({
  files: layer.files,
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          { group: layer.above, allowTypeImports: true, message: `${layer.name} may not import a layer above it (docs/architecture.md)` },
        ],
      },
    ],
  },
}));
// A pure core does no I/O: no database, files, servers or threads (types excepted; node:net's isIP is pure).
const coreRule = {
  files: ['src/**/core/**'],
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: [...ENTRY, '**/sdk/**', '**/platform/**', '**/http/**', '**/store.js', '**/*-store.js'],
            allowTypeImports: true,
            message: 'a core/ folder is pure: no I/O (docs/architecture.md)',
          },
        ],
        paths: ['node:fs', 'node:http', 'node:worker_threads', 'node:child_process', 'better-sqlite3', 'pg'].map((name) => ({
          name,
          allowTypeImports: true,
          message: 'a core/ folder is pure: no I/O',
        })),
      },
    ],
  },
};

// The web app is built apart from the server: of src/ it may import only these dependency-free
// modules (scripts/build-web.mjs's ALSO lists them, so a change rebuilds the app); types from anywhere.
const WEB_SHARED = ['src/posthog/date-grammar', 'src/posthog/trends-displays', 'src/web-app/sections', 'src/auth/scopes'];
const webRule = {
  files: ['web/**'],
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^(\\.\\./)+src/(?!(${WEB_SHARED.map((file) => file.slice('src/'.length)).join('|')})$)`,
            allowTypeImports: true,
            message: `the web app may import from src/ only ${WEB_SHARED.join(', ')}`,
          },
        ],
      },
    ],
  },
};

export default tseslint.config(
  { ignores: ['dist/', 'web/dist/', 'node_modules/', 'data/', '.tmp/', 'test/fixtures/', 'test/recordings/fixtures/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
  },
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', '*.ts', 'bin/*.js', 'scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Kysely's untyped builders (migrations, dynamic tables) and test response bodies are `any` on purpose.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  ...layerRules,
  coreRule,
  webRule,
);
