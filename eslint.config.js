import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import noImportCycle from './tools/lint/no-import-cycle.js';

/** Every folder of the pipeline (everything under src/ but core/ and ui/): the page imports none of them. */
const PIPELINE_STAGES = ['ingest', 'text', 'index', 'store', 'library', 'embed', 'rerank', 'models', 'question', 'retrieve', 'generate', 'eval'];

/** Pure-core rule for one stage: no UI, no DOM framework, none of the `banned` stage folders. */
function stageRule(files, banned, message, ignores = []) {
  const patterns = [
    { group: ['**/ui/**', 'preact', 'preact/*', '@preact/*'], message: 'Pure cores must not import the UI.' },
    { group: banned.map((stage) => `**/${stage}/**`), message },
  ];
  return [{ files: [files], ignores, rules: { 'no-restricted-imports': ['error', { patterns }] } }];
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
    files: ['src/core/**', 'src/text/**', 'src/ingest/**', 'src/embed/**', 'src/rerank/**', 'src/models/**', 'src/index/**', 'src/question/**', 'src/retrieve/**', 'src/generate/**', 'src/store/**', 'src/eval/**', 'src/library/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/ui/**', 'preact', 'preact/*', '@preact/*'], message: 'Pure cores must not import the UI.' }] }],
      'no-restricted-globals': ['error', 'window', 'document'],
    },
  },
  // Stages import the stages before them, never beside or after. `core/` (types, errors, ids) and `text/`
  // (sentences, tokens) are shared by all; the question stage reads the question before retrieval and
  // may ask a generator; the answer stage reads passages, never an index or the store.
  ...stageRule('src/core/**', ['text', 'ingest', 'embed', 'store', 'models', 'index', 'rerank', 'question', 'retrieve', 'generate', 'library', 'eval'], 'core imports nothing of the pipeline.'),
  ...stageRule('src/text/**', ['ingest', 'embed', 'store', 'models', 'index', 'rerank', 'question', 'retrieve', 'generate', 'library', 'eval'], 'text utilities import only core.'),
  ...stageRule('src/ingest/**', ['store', 'index', 'embed', 'rerank', 'question', 'retrieve', 'generate', 'library', 'eval'], 'ingest imports only core and text.'),
  ...stageRule('src/store/**', ['ingest', 'index', 'embed', 'rerank', 'question', 'retrieve', 'generate', 'library', 'eval'], 'store imports only core.'),
  // The model wing: catalogue and file cache (root), the one host (`host/`), a folder per runtime, and
  // their setup. The host and runtimes import only core; the encoder's worker also runs the embed stage's
  // chunk fitting (a too-long chunk is split and averaged where its tokenizer is); the setup connects the
  // models to the library, so it sits above the stages.
  ...stageRule('src/models/**', ['ingest', 'embed', 'rerank', 'store', 'index', 'question', 'retrieve', 'generate', 'library', 'eval'], 'the model wing (catalogue, cache, host, runtimes) imports only core.', ['src/models/setup/**', 'src/models/encoder/embed-handler.ts']),
  ...stageRule('src/models/encoder/embed-handler.ts', ['ingest', 'rerank', 'store', 'index', 'question', 'retrieve', 'generate', 'library', 'eval'], "the embed worker's handler imports core, the model wing and the embed stage's chunk fitting only."),
  ...stageRule('src/models/setup/**', ['ingest', 'index', 'retrieve', 'eval'], 'model setup imports the models, the stages that use them, the store and the library, never ingest, an index, retrieval or eval.'),
  ...stageRule('src/embed/**', ['store', 'index', 'rerank', 'question', 'retrieve', 'generate', 'library', 'eval'], 'embed imports core, text, models and ingest only.'),
  ...stageRule('src/index/**', ['ingest', 'embed', 'rerank', 'store', 'question', 'retrieve', 'generate', 'library', 'eval'], 'an index imports only core and text.'),
  ...stageRule('src/rerank/**', ['embed', 'store', 'index', 'question', 'retrieve', 'generate', 'library', 'eval'], 'rerank imports core, text, models and ingest only.'),
  ...stageRule('src/question/**', ['ingest', 'embed', 'store', 'index', 'rerank', 'retrieve', 'library', 'eval'], 'reading the question imports core, text, models and the generator interface only.'),
  ...stageRule('src/retrieve/**', ['ingest', 'embed', 'store', 'question', 'generate', 'library', 'eval'], 'retrieval fuses index hits, reranks them and reads passages: it imports core, text, index and rerank only.'),
  ...stageRule('src/generate/**', ['store', 'index', 'rerank', 'question', 'retrieve', 'library', 'eval'], 'generate reads passages and writes answers: it imports core, text, ingest and models only.'),
  {
    // No import circles anywhere, type-only imports included: a circle means two files are one concern.
    files: ['src/**', 'workers/**', 'tools/**', 'bench/**', 'tests/**'],
    plugins: { docqa: { rules: { 'no-import-cycle': noImportCycle } } },
    rules: { 'docqa/no-import-cycle': 'error' },
  },
  {
    // The page talks to the pipeline only through its client (src/ui/library-client.ts, whose surface is
    // typed in core/library-api.ts): no stage is imported, not even a pure one (the question's chips are
    // read in the library worker, `ask.read`). Shared types, ids and errors come from core/.
    files: ['src/ui/**', 'src/main.tsx'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: PIPELINE_STAGES.map((stage) => `**/${stage}/**`), message: 'The page reaches the pipeline only through its client (src/ui/library-client.ts) and core types.' }] }],
    },
  },
);
