import { describe, expect, it } from 'vitest';
import { askQuestion, waitForIndexed } from '../support/app-page.ts';
import { useApp } from '../support/browser.ts';
import { writeTree } from '../support/fixture-folder.ts';

const VENV = [
  '# Virtual environments',
  '',
  'A virtual environment keeps its own packages, apart from the system.',
  '',
  'To create a virtual environment, decide upon a directory and run the venv module as a script with the directory path:',
  '',
  '```',
  'python3 -m venv tutorial-env',
  '```',
  '',
  'Activate the virtual environment before you install packages into it.',
].join('\n');

const SETTINGS = [
  '# Settings',
  '',
  '## work_mem (integer)',
  '',
  'Sets the base maximum amount of memory used by a query operation before writing to temporary files. The default value is four megabytes (4MB). '
    + 'Note that a complex query might run several sort operations at once, each allowed as much memory as this value before it starts writing to temporary files.',
].join('\n');

describe('the quoted answer, as a person reads it (no model)', () => {
  const app = useApp();

  it('shows the command a sentence introduces with a colon, as code after it, and the figure a question asks for', async () => {
    await app.page.getByLabel('Add a folder').setInputFiles(await writeTree({ 'venv.md': VENV, 'settings.md': SETTINGS }));
    await waitForIndexed(app.page, 2);
    const answer = app.page.getByRole('region', { name: 'Answer' });
    const text = await askQuestion(app.page, 'How do I create a virtual environment?');
    expect(text).toContain('with the directory path:');
    await expect(answer.locator('code').allTextContents()).resolves.toEqual(['python3 -m venv tutorial-env']);
    // On a line of its own, under the sentence that introduces it.
    const [sentenceBox, codeBox] = await Promise.all([answer.getByText('with the directory path:', { exact: false }).boundingBox(), answer.locator('code').boundingBox()]);
    expect(codeBox!.y).toBeGreaterThan(sentenceBox!.y);
    expect(await askQuestion(app.page, 'How much memory can a sort use before writing to temporary files?')).toContain('The default value is four megabytes (4MB).');
  });
});
