import { useEffect, useState } from 'preact/hooks';
import type { Answer, Citation, TextRange } from '../core/types.ts';
import { answerAsMarkdown, answerMarkdown, citesOf } from './answer-markdown.ts';
import { AnswerSteps } from './answer-steps.tsx';
import { answer, answerSeq, asking, streaming } from './ask-state.ts';
import { distinguishCitations, sourceRequestOf } from './citation-names.ts';
import { renderMarkdown } from './markdown.ts';
import { segments } from './code-ranges.ts';
import { openSource } from './source-state.ts';
import { whyInWords } from './why-words.ts';

/** An excerpt with its marked words in bold, and its code (the passage's `code`) shown as code. */
function Marked({ text, marks, code }: { text: string; marks: Citation['marks']; code?: TextRange[] }) {
  const piece = (from: number, to: number) => {
    const parts = [];
    let at = from;
    for (const m of marks) {
      const start = Math.max(m.start, at);
      const end = Math.min(m.end, to);
      if (end <= start) continue;
      parts.push(text.slice(at, start), <strong class="hl">{text.slice(start, end)}</strong>);
      at = end;
    }
    parts.push(text.slice(at, to));
    return parts;
  };
  return <>{segments(text.length, code).map((s) => (s.code ? <code class="code-block">{piece(s.start, s.end)}</code> : piece(s.start, s.end)))}</>;
}

/**
 * "Residential lease, page 2 · Rent": the document's title (its file name when it has none) and the location
 * as the Source dialog names it, the title left out when the location starts with it ("Handbook › House
 * rules"); each part isolated, so none can reorder another (isolate.tsx); then, when another source has the
 * same document and location, the first words of what this one cites. The path follows on a line of its own.
 */
function SourceLabel({ c, apart }: { c: Citation; apart: string | undefined }) {
  const p = c.passage;
  const title = p.docTitle ?? p.docName;
  const inLabel = p.docTitle !== undefined && p.label.startsWith(p.docTitle);
  return (
    <>
      {!inLabel && (
        <>
          <bdi class="source-title">{title}</bdi>,{' '}
        </>
      )}
      <bdi class="source-label">{p.label}</bdi>
      {apart && (
        <>
          {' · '}
          <bdi class="source-apart">{apart}</bdi>
        </>
      )}
    </>
  );
}

/**
 * "Why this passage": a disclosure button that says in words where each search and the reranker put the
 * passage ("matches your words: 1st · similar meaning: 2nd"), with the raw figures behind a toggle
 * ("BM25 #1 · Dense #2 · RRF 0.0325").
 */
function WhyThisPassage({ c }: { c: Citation }) {
  const [open, setOpen] = useState(false);
  const id = `why-${c.n}`;
  return (
    <div class="why">
      <button type="button" class="link" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        Why this passage
      </button>
      {open && (
        <div id={id}>
          <p class="why-words">{whyInWords(c.passage) || 'found by the search'}</p>
          <details class="why-figures">
            <summary>Scores</summary>
            <span class="why-ranks">{c.passage.why}</span>
          </details>
        </div>
      )}
    </div>
  );
}

const REMOVED_WHY: Record<NonNullable<Answer['removedCitations']>[number]['reason'], string> = {
  'no-such-passage': 'pointed to no source the model was given',
  'not-supported': 'its source does not say what the sentence says',
};

/**
 * Opens the Source dialog from a citation link inside rendered Markdown (`#source-n-a-b`: the `[n]` after
 * segments a to b), marking the sentences of source n that support those segments, not every sentence it
 * supports elsewhere in the answer.
 */
function onCitationClick(e: MouseEvent, a: Answer): void {
  const link = (e.target as Element | null)?.closest?.('a[href^="#source-"]');
  if (!link) return;
  e.preventDefault();
  const [n, from, to] = link.getAttribute('href')!.slice('#source-'.length).split('-').map(Number);
  const citation = a.citations[n! - 1];
  if (!citation) return;
  const quotes = from === undefined || to === undefined ? [] : a.segments.slice(from, to + 1).flatMap((seg) => seg.quotes?.filter((_, k) => citesOf(seg)[k] === n) ?? []);
  // Two sentences of the run may rest on the same passage sentence: each is marked once, in text order.
  const distinct = quotes.sort((x, y) => x.start - y.start).filter((q, k) => k === 0 || q.start >= quotes[k - 1]!.end);
  void openSource(sourceRequestOf(distinct.length ? { ...citation, quotes: distinct } : citation));
}

/** The answer as it is written (streamed), then checked: a model's as Markdown with citation links, else the quotes with their [n]. */
function AnswerBody({ a }: { a: Answer | undefined }) {
  if (asking.value) return streaming.value ? <div class="streaming" dangerouslySetInnerHTML={{ __html: renderMarkdown(streaming.value) }} /> : null;
  if (!a) return null;
  if (!a.found) return <p>{a.stopped ? 'Stopped before the model wrote an answer.' : 'Not found in your documents.'}</p>;
  if (a.generatedBy) {
    return (
      <>
        <div class="generated" onClick={(e) => onCitationClick(e, a)} dangerouslySetInnerHTML={{ __html: renderMarkdown(answerMarkdown(a)) }} />
        <p class="answer-note">
          Written by {a.generatedBy} from the sources below{a.stopped ? '; stopped before it finished' : ''}.
          {a.segments.some((s) => s.attributed) && ' Where the model cited nothing, the citation is the source that states the sentence.'}
          {a.segments.some((s) => s.unsupported) && ' Marked sentences are not supported by any source.'}
          {a.removedCitations?.length ? ` ${a.removedCitations.length} citation${a.removedCitations.length > 1 ? 's' : ''} removed: ${a.removedCitations.map((r) => `[${r.n}] ${REMOVED_WHY[r.reason]}`).join('; ')}.` : ''}
        </p>
      </>
    );
  }
  return (
    <p>
      {a.segments.map((s, i) => (
        <span key={i}>
          <bdi>{s.code ? <code class="code-block">{s.text}</code> : s.text}</bdi>{' '}
          {/* Consecutive quotes from one passage share one [n], after the last of them. */}
          {s.cite !== undefined && a.segments[i + 1]?.cite !== s.cite && (
            <a
              href={`#source-${s.cite}`}
              onClick={(e) => {
                e.preventDefault();
                void openSource(sourceRequestOf(a.citations[s.cite! - 1]!));
              }}
            >
              [{s.cite}]
            </a>
          )}{' '}
        </span>
      ))}
    </p>
  );
}

/** "Copy as Markdown", and what became of the copy (`copied`, told by `setCopied`). */
function CopyAnswer({ a, copied, setCopied }: { a: Answer; copied: string; setCopied: (said: string) => void }) {
  return (
    <p class="answer-tools">
      <button
        type="button"
        onClick={() => {
          void navigator.clipboard.writeText(answerAsMarkdown(a)).then(
            () => setCopied('Copied as Markdown'),
            () => setCopied('Could not copy: the browser refused access to the clipboard'),
          );
        }}
      >
        Copy as Markdown
      </button>{' '}
      <span role="status">{copied}</span>
    </p>
  );
}

/** The numbered sources an answer cites (or, not found, the closest passages), each with its excerpt marked. */
function Sources({ a }: { a: Answer }) {
  const apart = distinguishCitations(a.citations);
  return (
    <>
      {/* Not found: the passages retrieval found closest, which the answer does not cite. */}
      <h2>{a.found ? 'Sources' : 'Closest passages'}</h2>
      <ol aria-label="Sources" class="sources">
        {a.citations.map((c, i) => (
          <li key={c.n} id={`source-${c.n}`}>
            <p class="source-name">
              [{c.n}] <SourceLabel c={c} apart={apart[i]} />
            </p>
            <p class="source-where">
              <bdi class="source-path">{c.passage.docPath}</bdi>{' '}
              {/* A closest passage opens like a citation: the Source dialog, at the passage, marked. */}
              <button type="button" class="link" aria-label={`Open source ${c.n} in its document`} onClick={() => void openSource(sourceRequestOf(c))}>
                Open
              </button>
            </p>
            <p class="excerpt">
              <Marked text={c.passage.window} marks={c.marks} code={c.passage.code} />
            </p>
            <WhyThisPassage key={`${answerSeq.value}-${c.n}`} c={c} />
          </li>
        ))}
      </ol>
    </>
  );
}

/** The Answer region (steps, the answer being written or written), its copy button, and its sources. */
export function AnswerView() {
  // Kept here, not in the copy button, which is gone while an answer is being written: a new answer clears it.
  const [copied, setCopied] = useState('');
  const seq = answerSeq.value;
  useEffect(() => setCopied(''), [seq]);
  const a = answer.value;
  return (
    <>
      <section aria-label="Answer" class="answer" aria-live="polite" aria-busy={asking.value} data-seq={answerSeq.value}>
        <AnswerSteps />
        <AnswerBody a={a} />
      </section>
      {a && !asking.value && <CopyAnswer a={a} copied={copied} setCopied={setCopied} />}
      {a && a.citations.length > 0 && <Sources a={a} />}
    </>
  );
}
