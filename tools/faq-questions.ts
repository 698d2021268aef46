/**
 * `npx tsx tools/faq-questions.ts <folder of HTML FAQ pages> > queries.jsonl`: the pages' question
 * headings as a BEIR-style queries file, for `npm run eval -- --unanswerable queries.jsonl`. For example
 * Debian's FAQ: `apt-get download debian-faq && dpkg -x debian-faq_*.deb faq` then
 * `faq/usr/share/doc/debian/FAQ` (its `*.en.html` pages).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { faqQuestions } from '../src/eval/faq-questions.ts';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: npx tsx tools/faq-questions.ts <folder of HTML pages> > queries.jsonl');
  process.exit(2);
}
const names = (await readdir(dir)).filter((n) => /\.x?html?$/i.test(n)).sort();
const pages = await Promise.all(names.map(async (name) => ({ name, bytes: new Uint8Array(await readFile(join(dir, name))) })));
faqQuestions(pages).forEach((text, i) => console.log(JSON.stringify({ _id: `faq-${i + 1}`, text })));
