import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Answer, SearchFilter } from '../core/types.ts';
import { askInConversation, earlier, liveStep, newConversation, rewrittenStep, typedQuestion } from './conversation-state.ts';
import { answer, asking } from './ask-state.ts';

/** An answer as one compact paragraph: its sentences, without citations (the full answer has them). */
function compactText(a: Answer): string {
  if (!a.found) return a.stopped ? 'Stopped before the model wrote an answer.' : 'Not found in your documents.';
  return a.segments.map((s) => s.text.trim()).join(' ');
}

/** The earlier questions of the conversation on show, each with its answer, compact, oldest first; they can be folded away. */
export function EarlierTurns() {
  const turns = earlier.value;
  const [folded, setFolded] = useState(false);
  if (!turns.length) return null;
  const count = `${turns.length} earlier question${turns.length === 1 ? '' : 's'}`;
  return (
    <section class="earlier" aria-label="Earlier in this conversation">
      <button type="button" class="link" aria-expanded={!folded} onClick={() => setFolded(!folded)}>
        {folded ? `Show ${count}` : `Hide ${count}`}
      </button>
      {!folded && (
        <ol>
          {turns.map((a, i) => (
            <li key={i}>
              <p class="earlier-question">
                <bdi>{typedQuestion(a)}</bdi>
              </p>
              <p class="earlier-answer">
                <bdi>{compactText(a)}</bdi>
              </p>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** The question of the answer on show, as typed (the question box may hold another by now). */
export function CurrentQuestion() {
  const a = answer.value;
  if (!a || asking.value) return null;
  return (
    <p class="current-question">
      <bdi>{typedQuestion(a)}</bdi>
    </p>
  );
}

/** "New conversation": clears the Answer area; the next question starts a conversation of its own. Hidden before the first question. */
export function NewConversationButton() {
  // Shown once there is a conversation to leave (a control appears when it can be used).
  if (!answer.value && !earlier.value.length && !asking.value) return null;
  return (
    <button type="button" class="new-conversation" disabled={asking.value} onClick={newConversation}>
      New conversation
    </button>
  );
}

/** The searched question as a text field: Enter (Search again) asks with it, Escape or Cancel closes it. */
function EditSearched({ initial, onSearch, onClose }: { initial: string; onSearch: (standalone: string) => void; onClose: () => void }) {
  const [text, setText] = useState(initial);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  return (
    <form
      class="searched searched-edit"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim()) onSearch(text.trim());
      }}
    >
      <label>
        Searched for:{' '}
        <input
          ref={field}
          type="text"
          aria-label="Searched question"
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') onClose();
          }}
        />
      </label>{' '}
      <button type="submit">Search again</button>{' '}
      <button type="button" onClick={onClose}>
        Cancel
      </button>
    </form>
  );
}

/**
 * "Searched for: <standalone>" above the answer when the follow-up was rewritten (or edited), with Edit:
 * the person corrects the searched question and searches again (the answer replaces this one).
 */
export function SearchedFor({ filter }: { filter: SearchFilter }) {
  const a = answer.value;
  const step = asking.value ? liveStep.value : a && rewrittenStep(a);
  const [editing, setEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  // A layout effect: focus moves in the same task that removes the field, never left on the page's body.
  useLayoutEffect(() => {
    // Back on Edit when the field closes (Escape, Cancel).
    if (!editing && wasEditing.current) editButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);
  useEffect(() => setEditing(false), [a]);
  if (!step) return null;
  if (editing && !asking.value) {
    const search = (standalone: string) => {
      setEditing(false);
      void askInConversation(step.question, filter, standalone);
    };
    return <EditSearched initial={step.standalone} onSearch={search} onClose={() => setEditing(false)} />;
  }
  return (
    <p class="searched">
      Searched for: <bdi class="standalone">{step.standalone}</bdi>
      {step.by === 'rule' && <span class="hint"> (the question with words from the one before)</span>}
      {!asking.value && (
        <>
          {' '}
          <button ref={editButton} type="button" class="link" aria-label="Edit the searched question" onClick={() => setEditing(true)}>
            Edit
          </button>
        </>
      )}
    </p>
  );
}
