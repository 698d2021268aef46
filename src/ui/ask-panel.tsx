import { signal } from '@preact/signals';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Citation, SearchFilter } from '../core/types.ts';
import { distinguishCitations, sourceRequestOf } from './citation-names.ts';
import { AnswerSteps, AskToggles } from './answer-steps.tsx';
import { Filters } from './filters.tsx';
import { SemanticStatus } from './semantic-status.tsx';
import { AnswerNotice } from './answer-notice.tsx';
import { readFilters, withChips, type QueryChip } from '../question/self-query.ts';
import { renderMarkdown } from './markdown.ts';
import { answer, answerSeq, askError, asking, askSteps, stopAnswer, streaming } from './ask-state.ts';
import { queryableDocs } from './library-state.ts';
import { openSource } from './source-state.ts';
import { chosenWholeDocument, WholeDocument } from './whole-document.tsx';
import { CurrentQuestion, EarlierTurns, NewConversationButton, SearchedFor } from './conversation.tsx';
import { askInConversation } from './conversation-state.ts';
import type { Answer, AnswerSegment, AskStep } from '../core/types.ts';

function Marked({ text, marks }: { text: string; marks: Citation['marks'] }) {
  const parts = [];
  let at = 0;
  for (const m of marks) {
    if (m.start < at) continue;
    parts.push(text.slice(at, m.start), <strong class="hl">{text.slice(m.start, m.end)}</strong>);
    at = m.end;
  }
  parts.push(text.slice(at));
  return <>{parts}</>;
}

/**
 * "docs/a.pdf, page 2 · Rent" (the location as the Source dialog names it, a PDF page with its section):
 * path and label each isolated, so neither can reorder the other (isolate.tsx); then, when another source
 * has the same document and location, the first words of what this one cites.
 */
function SourceLabel({ c, apart }: { c: Citation; apart: string | undefined }) {
  return (
    <>
      <bdi class="source-path">{c.passage.docPath}</bdi>, <bdi class="source-label">{c.passage.label}</bdi>
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
 * "Why this passage": a disclosure button that reveals where the passage stood in each retriever and
 * its fused score ("BM25 #3 · Dense #1 · RRF 0.0325").
 */
function WhyThisPassage({ c }: { c: Citation }) {
  const [open, setOpen] = useState(false);
  const id = `why-${c.n}`;
  return (
    <p class="why">
      <button type="button" class="link" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        Why this passage
      </button>
      {open && (
        <span id={id} class="why-ranks">
          {' '}
          {c.passage.why}
        </span>
      )}
    </p>
  );
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
      : a.segments.map((seg, i) => `${seg.text}${seg.cite !== undefined && a.segments[i + 1]?.cite !== seg.cite ? ` [${seg.cite}]` : ''}`).join(' ')
    : 'Not found in your documents.';
  const sources = a.citations.map((c) => `${c.n}. ${c.passage.docPath}, ${c.passage.label}`);
  return `**${a.question}**\n\n${body.trim()}\n\n${a.found ? 'Sources' : 'Closest passages'}:\n${sources.join('\n')}\n`;
}

const REMOVED_WHY: Record<NonNullable<Answer['removedCitations']>[number]['reason'], string> = {
  'no-such-passage': 'pointed to no source the model was given',
  'not-supported': 'its source does not say what the sentence says',
};

/** A segment's citations, in the order written. */
function citesOf(seg: AnswerSegment): number[] {
  return seg.cites ?? (seg.cite !== undefined ? [seg.cite] : []);
}

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

const CHIP_WORDS: Record<QueryChip['kind'], string> = { document: 'Only in', folder: 'Only in folder', type: 'Only', tag: 'Only tagged', date: 'Only' };
const chipKey = (c: QueryChip) => `${c.kind}:${c.label}`;

/** The chips of the filters the model read (a `filters` step), if any. */
function chipsOfSteps(steps: readonly AskStep[] | undefined): QueryChip[] {
  return steps?.find((s): s is Extract<AskStep, { type: 'filters' }> => s.type === 'filters')?.chips ?? [];
}

/**
 * Filters read from the question, as removable chips, shown before the search runs: the rules' as the
 * question is typed, the model's (`byModel`, marked by a tooltip) once its reading arrives.
 */
function QueryChips({ chips, byModel = [], onRemove }: { chips: QueryChip[]; byModel?: QueryChip[]; onRemove: (c: QueryChip) => void }) {
  if (!chips.length && !byModel.length) return null;
  return (
    <ul class="chips" aria-label="Filters from your question">
      {[...chips, ...byModel].map((c) => (
        <li key={chipKey(c)} title={byModel.includes(c) ? 'Read from your question by the model' : undefined}>
          {CHIP_WORDS[c.kind]} <bdi>{c.label}</bdi>{' '}
          <button type="button" class="chip-remove" aria-label={`Remove filter ${c.label}`} onClick={() => onRemove(c)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

interface QueuedQuestion {
  key: number;
  question: string;
  /** Asks it, with the filters and options chosen when it was submitted. */
  run: () => Promise<void>;
}

/**
 * Questions submitted while another is being answered, oldest first. They queue rather than stop the
 * answer being written: the person typed each one and expects an answer to each, and a follow-up reads
 * the turns before it, so they are asked in the order submitted, each once the one before is answered.
 */
const waitingQuestions = signal<QueuedQuestion[]>([]);
/** The question the queue is asking now (shown until its answer arrives). */
const askingQuestion = signal<string | undefined>(undefined);
let queuedSeq = 0;

/** Queues a question; asks the queue in turn when nothing of it is being asked. */
function queueQuestion(question: string, run: () => Promise<void>): void {
  waitingQuestions.value = [...waitingQuestions.value, { key: ++queuedSeq, question: question.trim(), run }];
  if (askingQuestion.value === undefined) void askInTurn();
}

async function askInTurn(): Promise<void> {
  for (let next = waitingQuestions.value[0]; next; next = waitingQuestions.value[0]) {
    waitingQuestions.value = waitingQuestions.value.slice(1);
    askingQuestion.value = next.question;
    try {
      await next.run();
    } catch (err) {
      // askInConversation shows its own errors; one that escapes must not stop the questions after it.
      console.warn('a queued question failed', err);
    }
  }
  askingQuestion.value = undefined;
}

/** The question being asked and those waiting their turn, each waiting one with a button to drop it. */
function QuestionQueue() {
  const now = askingQuestion.value;
  const queued = waitingQuestions.value;
  if (now === undefined && !queued.length) return null;
  return (
    <div class="question-queue" role="status">
      {now !== undefined && (
        <p>
          Answering: <bdi class="asking-question">{now}</bdi>
        </p>
      )}
      {queued.length > 0 && (
        <>
          <p>
            {queued.length} question{queued.length > 1 ? 's' : ''} waiting, asked in turn after this one:
          </p>
          <ol aria-label="Waiting questions">
            {queued.map((q) => (
              <li key={q.key}>
                <bdi class="waiting-question">{q.question}</bdi>{' '}
                <button type="button" class="link" aria-label={`Do not ask ${q.question}`} onClick={() => (waitingQuestions.value = waitingQuestions.value.filter((w) => w !== q))}>
                  Do not ask
                </button>
              </li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}

export function AskPanel() {
  const [question, setQuestion] = useState('');
  const [filter, setFilter] = useState<SearchFilter>({});
  const [removed, setRemoved] = useState<ReadonlySet<string>>(new Set());
  const [copied, setCopied] = useState('');
  const seq = answerSeq.value;
  useEffect(() => setCopied(''), [seq]);
  const docs = queryableDocs.value;
  // A question with no words names no filter: thousands of names are not read for it on every refresh.
  const found = useMemo(() => (question.trim() ? readFilters(question, docs) : []), [question, docs]);
  const chips = found.filter((c) => !removed.has(chipKey(c)));
  const a = answer.value;
  // The model's chips, once its reading arrives (a step before the answer), while the question is the one it read.
  const [asked, setAsked] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const read = question.trim() === asked ? chipsOfSteps(asking.value ? askSteps.value : a?.steps) : [];
  const byModel = read.filter((c) => !chips.some((r) => chipKey(r) === chipKey(c)));
  const ask = (options: { filterChips?: QueryChip[]; redo?: boolean } = {}) => {
    if (!question.trim()) return;
    setAsked(question.trim());
    // The filters and the whole document as chosen now, not when its turn comes.
    const chosen = withChips(filter, chips);
    const wholeDocument = chosenWholeDocument(question, chosen);
    queueQuestion(question, () => askInConversation(question, chosen, undefined, { wholeDocument, ...options }));
  };
  // Removing a chip the model read asks again without it (the rest kept as they are, not read again).
  // Keyboard focus goes back to the question (the chip's button is gone).
  const remove = (c: QueryChip) => {
    if (byModel.includes(c)) ask({ filterChips: byModel.filter((m) => m !== c), redo: true });
    else setRemoved(new Set([...removed, chipKey(c)]));
    input.current?.focus();
  };
  const apart = a ? distinguishCitations(a.citations) : [];
  return (
    <div class="ask">
      <form
        class="ask-form"
        onSubmit={(e) => {
          e.preventDefault();
          ask();
        }}
      >
        <input ref={input} type="text" aria-label="Ask a question" placeholder="Ask a question about your documents" value={question} onInput={(e) => setQuestion(e.currentTarget.value)} />
        {/* Never disabled while answering: Enter submits only while this is enabled, and a question asked now waits its turn. */}
        <button type="submit">Ask</button>
        {asking.value && (
          <button type="button" onClick={() => void stopAnswer()}>
            Stop
          </button>
        )}{' '}
        <NewConversationButton />
      </form>
      <AskToggles />
      <WholeDocument question={question} filter={withChips(filter, chips)} />
      <QueryChips chips={chips} byModel={byModel} onRemove={remove} />
      <Filters onChange={setFilter} />
      <SemanticStatus />
      <AnswerNotice />
      {askError.value && (
        <p role="alert" class="error">
          {askError.value}
        </p>
      )}
      <EarlierTurns />
      <CurrentQuestion />
      <QuestionQueue />
      <SearchedFor filter={withChips(filter, chips)} />
      <section aria-label="Answer" class="answer" aria-live="polite" aria-busy={asking.value} data-seq={answerSeq.value}>
        <AnswerSteps />
        {asking.value && streaming.value && <div class="streaming" dangerouslySetInnerHTML={{ __html: renderMarkdown(streaming.value) }} />}
        {!asking.value && a && !a.found && <p>{a.stopped ? 'Stopped before the model wrote an answer.' : 'Not found in your documents.'}</p>}
        {!asking.value && a?.found && a.generatedBy && (
          <>
            <div class="generated" onClick={(e) => onCitationClick(e, a)} dangerouslySetInnerHTML={{ __html: renderMarkdown(answerMarkdown(a)) }} />
            <p class="answer-note">
              Written by {a.generatedBy} from the sources below{a.stopped ? '; stopped before it finished' : ''}.
              {a.segments.some((s) => s.unsupported) && ' Marked sentences are not supported by any source.'}
              {a.removedCitations?.length ? ` ${a.removedCitations.length} citation${a.removedCitations.length > 1 ? 's' : ''} removed: ${a.removedCitations.map((r) => `[${r.n}] ${REMOVED_WHY[r.reason]}`).join('; ')}.` : ''}
            </p>
          </>
        )}
        {!asking.value && a?.found && !a.generatedBy && (
          <p>
            {a.segments.map((s, i) => (
              <span key={i}>
                <bdi>{s.text}</bdi>{' '}
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
        )}
      </section>
      {a && !asking.value && (
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
      )}
      {a && a.citations.length > 0 && (
        <>
          {/* Not found: the passages retrieval found closest, which the answer does not cite. */}
          <h2>{a.found ? 'Sources' : 'Closest passages'}</h2>
          <ol aria-label="Sources" class="sources">
            {a.citations.map((c, i) => (
              <li key={c.n} id={`source-${c.n}`}>
                <p class="source-name">
                  [{c.n}] <SourceLabel c={c} apart={apart[i]} />
                </p>
                <p class="excerpt">
                  <Marked text={c.passage.window} marks={c.marks} />
                </p>
                <WhyThisPassage key={`${answerSeq.value}-${c.n}`} c={c} />
              </li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}
