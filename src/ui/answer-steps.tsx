import type { AskStep, PassageRef } from '../core/types.ts';
import { answerModel } from './answer-models-state.ts';
import { answer, asking, askSteps } from './ask-state.ts';
import { expandQueries, lookFurther, setAskOption } from './preferences.ts';

/** "docs/a.md, Rent; docs/b.md, Heating": the passages a hop brought, each part isolated (isolate.tsx). */
function PassageList({ passages }: { passages: readonly PassageRef[] }) {
  return (
    <>
      {passages.map((p, i) => (
        <span key={p.chunkId}>
          {i > 0 && '; '}
          <bdi>{p.docPath}</bdi>
          {p.label && (
            <>
              , <bdi>{p.label}</bdi>
            </>
          )}
        </span>
      ))}
    </>
  );
}

/** One step, as a line of the Answer area. */
function StepLine({ step }: { step: AskStep }) {
  if (step.type === 'expanded') {
    return (
      <li>
        Searched {step.queries.length} phrasing{step.queries.length === 1 ? '' : 's'}:{' '}
        {step.queries.map((q, i) => (
          <span key={i}>
            {i > 0 && ' · '}“<bdi>{q}</bdi>”
          </span>
        ))}
      </li>
    );
  }
  if (step.type !== 'hop') return null;
  const n = step.passages.length;
  const found = `${n} ${step.hop > 1 ? 'new ' : ''}passage${n === 1 ? '' : 's'}`;
  return (
    <li>
      Hop {step.hop}: <bdi class="hop-query">{step.query}</bdi> — {found}
      {n > 0 && (
        <>
          {' ('}
          <PassageList passages={step.passages} />)
        </>
      )}
      {step.sufficient === true && (step.stoppedBy === 'reranker' ? '. Enough to answer (the reranker is sure of the top passage).' : '. Enough to answer.')}
      {step.sufficient === false && step.missing && (
        <>
          . Missing: <bdi>{step.missing}</bdi>
        </>
      )}
    </li>
  );
}

/**
 * What was done before the answer: the phrasings searched and each multi-hop hop with its
 * query and the passages it brought. Shown while the answer is being written (steps arrive one by one)
 * and with the answer after.
 */
export function AnswerSteps() {
  const steps = (asking.value ? askSteps.value : answer.value?.steps ?? []).filter((s) => s.type === 'expanded' || s.type === 'hop');
  if (!steps.length) return null;
  return (
    <ol class="answer-steps" aria-label="Search steps">
      {steps.map((s, i) => (
        <StepLine key={i} step={s} />
      ))}
    </ol>
  );
}

/** "Search several phrasings" and "Look further (multi-hop)": shown only when a model writes answers. */
export function AskToggles() {
  if (!answerModel.value) return null;
  return (
    <div class="ask-toggles">
      <label>
        <input type="checkbox" checked={expandQueries.value} onChange={(e) => setAskOption('expand', e.currentTarget.checked)} /> Search several phrasings
      </label>
      <label>
        <input type="checkbox" checked={lookFurther.value} onChange={(e) => setAskOption('multiHop', e.currentTarget.checked)} /> Look further (multi-hop)
      </label>
    </div>
  );
}
