import { signal } from '@preact/signals';
import { partsEta } from './format.ts';
import { asking, askSteps } from './ask-state.ts';
import { documents } from './library-state.ts';
import type { ShownReading } from './question-reading-state.ts';

/**
 * Whole-document questions in the Ask panel: the "Whole document" toggle next to Ask
 * (enabled when the question's chips or the filters leave exactly one document), the document that will
 * be read when the question asks for it ("Reading all of lease.md"), and the parts read so far while the
 * library reads it ("Read 3 of 12 parts"), from the `whole-document` steps.
 */

/** The toggle, kept across questions (the person chose it). */
export const wholeDocumentOn = signal(false);

/** How the page asks which document to read whole, when the question names several alike. */
export function whichDocumentNote(paths: readonly string[]): string {
  const [first] = paths;
  const parts = first!.split('/');
  const example = parts.slice(-2).join('/');
  const shown = paths.length > 3 ? `${paths.slice(0, 3).join(', ')} and ${paths.length - 3} more` : paths.join(', ');
  return `Which one? ${paths.length} documents have this name (${shown}). To read one whole, write its folder too ("${example}") or choose it in "Only in document".`;
}

/** When the reading in progress started (its document and part count), for the time left. */
let reading: { key: string; at: number } | undefined;

/** ", about 3 min left" for the reading in progress, timed from its first step (`partsEta`). */
function readingEta(step: { docId: string; done: number; total: number }, now = Date.now()): string {
  const key = `${step.docId}:${step.total}`;
  if (reading?.key !== key || step.done === 0) reading = { key, at: now };
  return partsEta(step.done, step.total, now - reading.at);
}

/** The toggle, the document that will be read, and the parts read so far, from the question's reading (`shown`). */
export function WholeDocument({ shown }: { shown: ShownReading }) {
  const { reading: read, current } = shown;
  // The toggle follows the latest reading (it does not flicker as the person types); the notes say which
  // document will be read, so they wait for the reading of the question on screen.
  const single = read?.single;
  const recognised = current ? read?.recognised : undefined;
  const reading = wholeDocumentOn.value && single ? (current ? single : undefined) : recognised;
  const ambiguous = reading || !current ? undefined : read?.ambiguous;
  const step = askSteps.value.filter((s) => s.type === 'whole-document').at(-1);
  // Nothing to read whole before there is a document; while the toggle cannot be used, it says why beside it.
  if (!documents.value.length) return null;
  return (
    <div class="whole-document">
      <label class="whole-toggle" title={single ? `Read every section of ${single.docPath}` : undefined}>
        <input
          type="checkbox"
          aria-label="Answer over the whole document"
          checked={wholeDocumentOn.value && !!single}
          disabled={!single}
          onChange={(e) => (wholeDocumentOn.value = e.currentTarget.checked)}
        />{' '}
        Whole document
      </label>
      {!single && <span class="whole-why">(to read one document whole, name it in the question or choose it in “Only in document”)</span>}
      {asking.value && step?.type === 'whole-document' ? (
        <p class="whole-note" role="status">
          Reading all of <bdi>{step.docPath}</bdi>: read {step.done} of {step.total} part{step.total === 1 ? '' : 's'}
          {readingEta(step)}
        </p>
      ) : (
        !asking.value &&
        (reading ? (
          <p class="whole-note">
            Reading all of <bdi>{reading.docPath}</bdi>
          </p>
        ) : (
          ambiguous && <p class="whole-note">{whichDocumentNote(ambiguous)}</p>
        ))
      )}
    </div>
  );
}
