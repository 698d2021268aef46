/**
 * `npm run fixtures:models -- <dir>`: writes the tiny random-weight test models as
 * `<dir>/tiny-encoder/`, `<dir>/tiny-cross-encoder/` and `<dir>/tiny-decoder/` (transformers.js folder layout). The same bytes
 * on every run; see `tools/models/tiny-models.ts`.
 */
import { writeTinyModels } from './models/tiny-models.ts';

const dir = process.argv[2];
if (!dir || process.argv.length > 3) {
  console.error('usage: npm run fixtures:models -- <dir>');
  process.exit(2);
}
for (const { path, bytes } of await writeTinyModels(dir)) console.log(`${String(bytes).padStart(8)}  ${path}`);
