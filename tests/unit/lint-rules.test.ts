// The project's own lint rules, run through ESLint's API on code written here: the page may not import a
// pipeline stage (it talks to the pipeline through its client), and no file may sit on an import circle,
// type-only imports included.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const STAGES = ['ingest', 'text', 'index', 'store', 'library', 'embed', 'rerank', 'models', 'question', 'retrieve', 'generate', 'eval'];

const eslint = new ESLint({ cwd: ROOT });

/** The rule ids ESLint reports for `code` as if it were the file at `filePath` (relative to the repository). */
async function rulesBroken(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return result!.messages.map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

describe('lint: the page talks to the pipeline only through its client', () => {
  it.each(STAGES)('a page importing the %s stage fails', async (stage) => {
    const code = `import { something } from '../${stage}/some-module.ts';\nexport const used = something;\n`;
    expect(await rulesBroken(code, 'src/ui/x.tsx')).toContain('no-restricted-imports');
  });

  it('the page may import core types and its own files', async () => {
    const code = "import type { DocId } from '../core/ids.ts';\nimport { connectLibrary } from './library-client.ts';\nexport type Id = DocId;\nexport const connect = connectLibrary;\n";
    expect(await rulesBroken(code, 'src/ui/x.tsx')).toEqual([]);
  });

  it('the same import is allowed where a stage may make it (the library worker reads the question)', async () => {
    const code = "import { readFilters } from '../question/self-query.ts';\nexport const read = readFilters;\n";
    expect(await rulesBroken(code, 'src/ui/x.tsx')).toContain('no-restricted-imports');
    expect(await rulesBroken(code, 'src/library/x.ts')).toEqual([]);
  });
});

describe('lint: no import circles, type-only imports included', () => {
  // The rule reads the files it follows from disk: two real files that import each other's types.
  const dir = path.join(ROOT, 'src', 'core', `__lint_fixture_${process.pid}__`);
  beforeAll(() => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'a.ts'), "import type { B } from './b.ts';\n\nexport interface A {\n  b?: B;\n}\n");
    writeFileSync(path.join(dir, 'b.ts'), "import type { A } from './a.ts';\n\nexport interface B {\n  a?: A;\n}\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports a circle of two type-only imports, on both files', async () => {
    const results = await eslint.lintFiles([path.join(dir, 'a.ts'), path.join(dir, 'b.ts')]);
    for (const result of results) expect(result.messages.map((m) => m.ruleId)).toEqual(['docqa/no-import-cycle']);
    expect(results[0]!.messages[0]!.message).toMatch(/Import circle: .*a\.ts.*b\.ts/u);
  });

  it('does not report a one-way type import', async () => {
    const code = "import type { A } from './a.ts';\n\nexport type C = A;\n";
    // A file that only imports one side of the circle is not on it.
    expect(await rulesBroken(code, path.relative(ROOT, path.join(dir, 'c.ts')))).toEqual([]);
  });
});
