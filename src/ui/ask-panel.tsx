import { useRef, useState } from 'preact/hooks';
import type { QueryChip } from '../core/query-filters.ts';
import type { SearchFilter } from '../core/types.ts';
import { AnswerNotice } from './answer-notice.tsx';
import { AskToggles } from './answer-steps.tsx';
import { AnswerView } from './answer-view.tsx';
import { askError, asking, stopAnswer } from './ask-state.ts';
import { CurrentQuestion, EarlierTurns, NewConversationButton, SearchedFor } from './conversation.tsx';
import { askInConversation } from './conversation-state.ts';
import { Filters } from './filters.tsx';
import { QueryChips, useQuestionChips } from './query-chips.tsx';
import { useFollowAnswer } from './follow-answer.ts';
import { askingQuestion, QuestionQueue, queueQuestion } from './question-queue.tsx';
import { SemanticStatus } from './semantic-status.tsx';
import { WholeDocument, wholeDocumentOn } from './whole-document.tsx';

/** The Ask panel: the question box with Ask and Stop, the filters and chips, the conversation and the answer. */
export function AskPanel() {
  const [question, setQuestion] = useState('');
  // Ask with nothing typed: said beside the box (not silently ignored), until something is typed.
  const [empty, setEmpty] = useState(false);
  const [filter, setFilter] = useState<SearchFilter>({});
  const read = useQuestionChips(question, filter);
  const { chips, byModel } = read;
  const input = useRef<HTMLInputElement>(null);
  const turn = useFollowAnswer(askingQuestion.value);
  const ask = (options: { filterChips?: QueryChip[]; redo?: boolean } = {}) => {
    if (!question.trim()) {
      setEmpty(true);
      input.current?.focus();
      return;
    }
    read.setAsked(question.trim());
    // The filters and the whole document as chosen now, not when its turn comes: the question is read for them at once.
    const whole = wholeDocumentOn.value;
    const chosen = read.readNow();
    queueQuestion(question, async () => {
      const { filter: asked, reading } = await chosen;
      await askInConversation(question, asked, undefined, { wholeDocument: whole ? reading?.single?.docId : undefined, ...options });
    });
  };
  // Removing a chip the model read asks again without it (the rest kept as they are, not read again).
  // Keyboard focus goes back to the question (the chip's button is gone).
  const remove = (c: QueryChip) => {
    if (byModel.includes(c)) ask({ filterChips: byModel.filter((m) => m !== c), redo: true });
    else read.hide(c);
    input.current?.focus();
  };
  return (
    <div class="ask">
      <form
        class="ask-form"
        onSubmit={(e) => {
          e.preventDefault();
          ask();
        }}
      >
        <input
          ref={input}
          type="text"
          aria-label="Ask a question"
          placeholder="Ask about your documents"
          value={question}
          aria-invalid={empty || undefined}
          aria-describedby={empty ? 'ask-empty' : undefined}
          onInput={(e) => {
            setQuestion(e.currentTarget.value);
            if (e.currentTarget.value.trim()) setEmpty(false);
          }}
        />
        {/* Never disabled while answering: Enter submits only while this is enabled, and a question asked now waits its turn. */}
        <button type="submit">Ask</button>
        {asking.value && (
          <button type="button" onClick={() => void stopAnswer()}>
            Stop
          </button>
        )}{' '}
        <NewConversationButton />
        {empty && (
          <p id="ask-empty" role="status" class="hint">
            Type a question first, then press Ask.
          </p>
        )}
      </form>
      <AskToggles />
      <WholeDocument shown={read.reading} />
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
      <div class="turn" ref={turn}>
        <CurrentQuestion />
        <QuestionQueue />
        <SearchedFor filter={read.filter} />
        <AnswerView />
      </div>
    </div>
  );
}
