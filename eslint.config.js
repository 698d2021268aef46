import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Pure-core rule for one stage: no UI, no DOM framework, none of the `banned` stage folders. */
function stageRule(files, banned, message) {
  const patterns = [
    { group: ['**/ui/**', 'preact', 'preact/*', '@preact/*'], message: 'Pure cores must not import the UI.' },
    { group: banned.map((stage) => `**/${stage}/**`), message },
  ];
  return [{ files: [files], rules: { 'no-restricted-imports': ['error', { patterns }] } }];
}

export default tseslint.config(
  { ignores: ['dist/', 'dist-harness/', 'node_modules/', 'dev-dist/', 'bench/results/', '.tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Pure cores never touch the DOM and never reach into the UI.
    files: ['src/core/**', 'src/ingest/**', 'src/embed/**', 'src/rerank/**', 'src/models/**', 'src/index/**', 'src/retrieve/**', 'src/generate/**', 'src/store/**', 'src/eval/**', 'src/library/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/ui/**', 'preact', 'preact/*', '@preact/*'], message: 'Pure cores must not import the UI.' }] }],
      'no-restricted-globals': ['error', 'window', 'document'],
    },
  },
  // Stages import the stages before them, never beside or after: ingest and store see only core; the
  // answer stage reads passages (and ingest's sentence splitter), never an index or the store.
  ...stageRule('src/ingest/**', ['store', 'index', 'rerank', 'retrieve', 'generate', 'library', 'eval'], 'ingest imports only core.'),
  ...stageRule('src/store/**', ['ingest', 'index', 'rerank', 'retrieve', 'generate', 'library', 'eval'], 'store imports only core.'),
  ...stageRule('src/models/**', ['ingest', 'embed', 'rerank', 'store', 'index', 'retrieve', 'generate', 'library', 'eval'], 'the model catalogue imports only core.'),
  ...stageRule('src/embed/**', ['store', 'index', 'rerank', 'retrieve', 'generate', 'library', 'eval'], 'embed imports core, models and ingest (the sentence splitter) only.'),
  ...stageRule('src/index/**', ['ingest', 'embed', 'rerank', 'store', 'retrieve', 'generate', 'library', 'eval'], 'an index imports only core.'),
  ...stageRule('src/rerank/**', ['embed', 'store', 'index', 'retrieve', 'generate', 'library', 'eval'], 'rerank imports core, models and ingest only.'),
  ...stageRule('src/retrieve/**', ['ingest', 'embed', 'store', 'generate', 'library', 'eval'], 'retrieval fuses index hits, reranks them and reads passages: it imports core, index and rerank only.'),
  ...stageRule('src/generate/**', ['store', 'index', 'rerank', 'retrieve', 'library', 'eval'], 'generate reads passages and runs generators: it imports core, ingest and models only.'),
  {
    // The UI reaches the pipeline only through worker clients and shared core types.
    files: ['src/ui/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/ingest/**', '**/index/**', '**/store/**', '**/library/**'], message: 'The UI talks to workers through src/ui/clients only.' }] }],
    },
  },
);
