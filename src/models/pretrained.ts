/**
 * Loading a transformers.js model's three parts (config, tokenizer, weights) from a source, the same way
 * for every runtime that has them (the encoder, the cross-encoder, the text generator): progress mapped
 * to {@link LoadProgress}, the source's `env` and fetch set around the load (`model-source.ts`), the
 * runtime's own checks of the config and the tokenizer before the weights are downloaded, and any failure
 * turned into a DocQaError that names the file or says what is wrong.
 */
import { AutoConfig, AutoTokenizer, type PreTrainedModel, type PreTrainedTokenizer } from '@huggingface/transformers';
import type { DocQaError } from '../core/errors.ts';
import { progressMapper, withSource, type LoadOptions, type ModelLocation } from './model-source.ts';

/** A transformers.js model class: `AutoModel`, `AutoModelForSequenceClassification`, `AutoModelForCausalLM`. */
export interface ModelClass {
  from_pretrained(repo: string, options: { revision: string; dtype: never; device?: never }): Promise<PreTrainedModel>;
}

export interface PretrainedChecks<C> {
  /** The head the weights are loaded with. */
  modelClass: ModelClass;
  /** Refuses a config the runtime cannot run, saying what it is instead (throws a DocQaError). */
  checkConfig(config: C): void;
  /** Refuses a tokenizer the runtime cannot use (a generator's needs a chat template). */
  checkTokenizer?(tokenizer: PreTrainedTokenizer): void;
  /** Turns a loading failure into a DocQaError (a DocQaError thrown by a check passes through). */
  explain(err: unknown): DocQaError;
}

/** The config, tokenizer and weights of `model` from `options.source`, checked in that order. */
export async function loadPretrained<C>(
  model: ModelLocation & { dtype: string },
  options: LoadOptions,
  checks: PretrainedChecks<C>,
): Promise<{ tokenizer: PreTrainedTokenizer; network: PreTrainedModel }> {
  const progress_callback = progressMapper(options.onProgress);
  const common = { revision: model.revision, progress_callback };
  return withSource(options, async () => {
    try {
      checks.checkConfig((await AutoConfig.from_pretrained(model.repo, common)) as C);
      const tokenizer: PreTrainedTokenizer = await AutoTokenizer.from_pretrained(model.repo, common);
      checks.checkTokenizer?.(tokenizer);
      const weights = { ...common, dtype: model.dtype as never, ...(options.device ? { device: options.device as never } : {}) };
      const network = await checks.modelClass.from_pretrained(model.repo, weights);
      return { tokenizer, network };
    } catch (err) {
      throw checks.explain(err);
    }
  });
}
