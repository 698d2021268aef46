import type { AskStep, Passage } from '../core/types.ts';
import type { Generator } from '../models/generator/generator.ts';
import { gatherPassages } from '../question/multi-hop.ts';
import { expandQuery } from '../question/query-expansion.ts';

export interface PassagesForOptions {
  /**
   * Retrieves the passages for a query; `phrasings`: other phrasings of it, searched too and fused
   * (`retrieve/multi-query.ts`).
   */
  retrieve: (query: string, phrasings?: readonly string[]) => Promise<Passage[]>;
  /** The model writing answers; without one, `expand` and `multiHop` do nothing. */
  generator?: Generator;
  /** Search several phrasings the model writes. Default false. */
  expand?: boolean;
  /** Judge the passages and search again for what is missing, up to 3 hops. Default false. */
  multiHop?: boolean;
  /** Each step as it happens. */
  onStep?: (step: AskStep) => void;
  signal?: AbortSignal;
}

/**
 * The passages a question is answered from, and the steps taken to find them: the
 * question's own retrieval; with `expand`, fused over the phrasings the model writes (reported as an
 * `expanded` step); with `multiHop`, followed by the hops the model's judgement asks for (each reported as
 * a `hop` step). Without a model the options do nothing, and no step is reported.
 */
export async function passagesFor(question: string, options: PassagesForOptions): Promise<{ passages: Passage[]; steps: AskStep[] }> {
  const steps: AskStep[] = [];
  const report = (step: AskStep) => {
    steps.push(step);
    options.onStep?.(step);
  };
  const { generator, signal } = options;
  let phrasings: string[] = [];
  if (options.expand && generator) {
    const queries = await expandQuery(question, generator, { signal });
    phrasings = queries.slice(1);
    report({ type: 'expanded', queries });
  }
  const first = await options.retrieve(question, phrasings);
  if (!options.multiHop || !generator) return { passages: first, steps };
  // A hop's query is the model's own search for what is missing: searched as it is, not expanded again.
  const gathered = await gatherPassages({ question, first, retrieve: (query) => options.retrieve(query), generator, signal, onHop: report });
  return { passages: gathered.passages, steps };
}
