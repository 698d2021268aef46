import { signal } from '@preact/signals';

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
export const askingQuestion = signal<string | undefined>(undefined);
let queuedSeq = 0;

/** Queues a question (`run` asks it); asks the queue in turn when nothing of it is being asked. */
export function queueQuestion(question: string, run: () => Promise<void>): void {
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
export function QuestionQueue() {
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
