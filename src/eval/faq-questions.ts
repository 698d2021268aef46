/**
 * Questions from another collection, for `npm run eval -- --unanswerable`: the headings of FAQ pages
 * that are questions ("3.1. Which Debian distribution is better for me?"), read with the app's HTML
 * parser, without their section numbers, each once. Real questions written by other people, about
 * another subject, so a collection's answers to them measure how often "Not found" is said when it should be.
 */
import { parseHtml } from '../ingest/parse-html.ts';

/** A heading's own text, without the section number in front ("3.1.2. "). */
const withoutNumber = (heading: string) => heading.replace(/^(?:\d{1,3}\.)+\d{0,3}\s+/, '').trim();

/** The question headings of HTML pages (`pages`: name and bytes), in page order, without repeats. */
export function faqQuestions(pages: Array<{ name: string; bytes: Uint8Array }>): string[] {
  const seen = new Set<string>();
  for (const page of pages) {
    for (const block of parseHtml(page.bytes, page.name).blocks) {
      const heading = withoutNumber(block.section?.split(' › ').pop() ?? '');
      if (heading.endsWith('?')) seen.add(heading);
    }
  }
  return [...seen];
}
