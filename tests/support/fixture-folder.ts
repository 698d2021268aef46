import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { makeDocx, makePdf } from './fixtures.ts';

/** Writes files (relative path → bytes or text) under a new temporary folder; returns its path. */
export async function writeTree(files: Record<string, Uint8Array | string>, name = 'docs'): Promise<string> {
  const root = join(await mkdtemp(join(tmpdir(), 'docqa-files-')), name);
  for (const [rel, content] of Object.entries(files)) {
    const path = join(root, rel);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  }
  return root;
}

/** A folder of mixed documents about different topics, with a sub-folder. */
export async function mixedLibrary(): Promise<Record<string, Uint8Array | string>> {
  return {
    'contracts/lease.pdf': await makePdf(
      [
        { lines: ['Residential Lease Agreement', '', 'The tenant pays rent on the first day of each month.'] },
        { lines: ['Security deposit', '', 'The landlord returns the security deposit within fourteen days', 'after the tenant moves out, minus documented repair costs.'] },
      ],
      'Residential Lease Agreement',
    ),
    'contracts/employment.docx': await makeDocx([
      { heading: 'Working hours', paragraphs: ['The employee works thirty-seven hours per week.'] },
      { heading: 'Holidays', paragraphs: ['The employee is entitled to twenty-five days of paid holiday per year.'] },
    ]),
    'notes/garden.md': '# Garden notes\n\n## Tomatoes\n\nTomatoes need full sun and regular watering.\n\n## Roses\n\nPrune roses in late winter.\n',
    'notes/recipe.html': '<html><head><title>Bread recipe</title></head><body><h1>Sourdough</h1><p>Feed the starter twelve hours before baking.</p><script>alert(1)</script></body></html>',
    'readme.txt': 'This folder holds contracts and personal notes.\n\nNothing here is shared.',
  };
}
