import type { Answer, AnswerSegment } from '../core/types.ts';

/** An answer as Markdown: for the Answer area (with citation links) and for the clipboard (pure). */

/** A segment's citations, in the order written. */
export function citesOf(seg: AnswerSegment): number[] {
  return seg.cites ?? (seg.cite !== undefined ? [seg.cite] : []);
}

/**
 * A model's answer as Markdown: each sentence followed by its checked citations as `#source-n` links (the
 * only links the sanitiser keeps), a sentence no passage supports wrapped in a marked span.
 */
export function answerMarkdown(a: Answer): string {
  let out = '';
  let runStart = 0;
  a.segments.forEach((seg, i) => {
    const next = a.segments[i + 1];
    const cites = citesOf(seg);
    const sameAsNext = next !== undefined && citesOf(next).join() === cites.join();
    // One [n] after a run of sentences citing the same passages; its link names the run (`#source-n-a-b`).
    const cite = cites.length && !sameAsNext ? ` ${cites.map((n) => `[[${n}]](#source-${n}-${runStart}-${i})`).join('')}` : '';
    if (!sameAsNext) runStart = i + 1;
    const text = seg.unsupported ? `<span class="unsupported" title="No source supports this sentence">${seg.text.trim()}</span>` : seg.text.trim();
    const trailing = /\s$/.test(seg.text) ? seg.text.match(/\s+$/)![0] : ' ';
    out += `${text}${cite}${trailing}`;
  });
  return out;
}

/**
 * The answer with its citations as Markdown, for the clipboard: the answer (a model's as written, checked;
 * quotes as quotes), then the numbered sources with their document and location.
 */
export function answerAsMarkdown(a: Answer): string {
  const body = a.found
    ? a.generatedBy
      ? answerMarkdown(a).replace(/\[\[(\d+)\]\]\(#source-[\d-]+\)/gu, '[$1]').replace(/<span class="unsupported"[^>]*>([^<]*)<\/span>/gu, '$1 (unsupported)')
      : a.segments.map((seg, i) => `${seg.code ? `\`${seg.text}\`` : seg.text}${seg.cite !== undefined && a.segments[i + 1]?.cite !== seg.cite ? ` [${seg.cite}]` : ''}`).join(' ')
    : 'Not found in your documents.';
  const sources = a.citations.map((c) => `${c.n}. ${c.passage.docPath}, ${c.passage.label}`);
  return `**${a.question}**\n\n${body.trim()}\n\n${a.found ? 'Sources' : 'Closest passages'}:\n${sources.join('\n')}\n`;
}
