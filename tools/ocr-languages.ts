/**
 * The measurement behind the scan languages' order (decision 0032, `ocr/ocr-languages.ts`): real text in
 * several languages, printed as scanned pages (the tests' renderer: serif 11 pt at 200 dpi), read by the
 * app's engine in several language sets. Prints one JSON line per text and set: CER, seconds per page, and
 * how many accented letters (À–ÿ) the truth has and the reading kept.
 *
 *   npx tsx tools/ocr-languages.ts fra=fr.txt deu=de.txt spa=es.txt eng=en.txt [--sets "eng;LANG;LANG+eng;fra+deu+spa+eng"]
 *
 * Each text file: lines of running text (the figures used Debian's manpages-fr/-de/-es pages, rendered with
 * `man -l`, and SciFact abstracts). `LANG` in a set stands for the text's own language.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createTesseractEngine } from '../src/ingest/ocr/tesseract-engine.ts';
import { acceptedLines } from '../src/ingest/ocr/recognised-page.ts';
import { renderPageImage } from '../tests/support/fixtures.ts';
import { characterErrorRate } from '../tests/support/ocr-measure.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { sets: { type: 'string', default: 'eng;LANG;LANG+eng' }, pages: { type: 'string', default: '2' } } });
const ACCENTED = /[À-ÿ]/g;
for (const arg of positionals) {
  const [lang, file] = arg.split('=') as [string, string];
  const lines = readFileSync(file, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean);
  const pages = Array.from({ length: Number(values.pages) }, (_, i) => lines.slice(i * 20, i * 20 + 20).join(' '));
  const images = pages.map((p) => renderPageImage({ paragraphs: [p] }));
  for (const set of values.sets!.replaceAll('LANG', lang).split(';')) {
    // English is always read last by the app's engine; a set without it is measured as the app would read it.
    const added = set.split('+').filter((c) => c !== 'eng').map((code) => ({ code }));
    const engine = await createTesseractEngine(added);
    let errors = 0;
    let length = 0;
    let ms = 0;
    let accents = 0;
    let accentsRead = 0;
    for (let i = 0; i < images.length; i++) {
      const t = performance.now();
      const page = await engine.recognise(images[i]!);
      ms += performance.now() - t;
      const read = (acceptedLines(page) ?? []).join(' ');
      // The page holds what fit on it: the truth is the text's start, as long as what was read.
      const truth = pages[i]!.replace(/\s+/g, ' ').slice(0, read.length);
      const cer = characterErrorRate(read, truth);
      errors += cer * truth.length;
      length += truth.length;
      accents += truth.match(ACCENTED)?.length ?? 0;
      accentsRead += read.match(ACCENTED)?.length ?? 0;
    }
    await engine.close();
    console.log(JSON.stringify({ text: lang, readIn: [...added.map((a) => a.code), 'eng'].join('+'), cer: +(errors / length).toFixed(4), secondsPerPage: +(ms / images.length / 1000).toFixed(2), accents, accentsRead }));
  }
}
