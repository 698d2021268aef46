import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'dev-dist/', 'bench/results/', '.tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Pure cores never touch the DOM and never reach into the UI.
    files: ['src/core/**', 'src/ingest/**', 'src/index/**', 'src/retrieve/**', 'src/generate/**', 'src/store/**', 'src/eval/**', 'src/library/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/ui/**', 'preact', 'preact/*', '@preact/*'], message: 'Pure cores must not import the UI.' }] }],
      'no-restricted-globals': ['error', 'window', 'document'],
    },
  },
  {
    // The UI reaches the pipeline only through worker clients and shared core types.
    files: ['src/ui/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/ingest/**', '**/index/**', '**/store/**', '**/library/**'], message: 'The UI talks to workers through src/ui/clients only.' }] }],
    },
  },
);
