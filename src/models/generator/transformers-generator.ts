/**
 * The WASM fallback generator: a small instruct model (a causal LM with a chat template,
 * such as Qwen2.5-0.5B-Instruct) run by transformers.js, for devices where WebLLM cannot run (no WebGPU).
 * Loads from the hub, a mirror, a local folder or the model cache (`models/model-source.ts`, shared with
 * the embedder and the reranker). Runs in Node (tests, evaluation) and in a worker; never touches the DOM.
 *
 * - **Prompt**: the messages through the tokenizer's own chat template (`apply_chat_template`, with the
 *   generation prompt), so each model gets the format it was trained on. A folder whose tokenizer has no
 *   chat template is refused (a base model would only continue the text).
 * - **Decoding**: greedy by default (temperature 0: `do_sample: false`), so a prompt gives the same text
 *   every time; the model's own `generation_config.json` still applies its logits processors (Qwen's
 *   repetition penalty). A temperature above 0 samples with the model's top-k / top-p.
 * - **Streaming**: transformers.js's `TextStreamer` decodes the tokens so far and hands over text up to
 *   the last space (a word is never cut in the middle, which a byte-level tokenizer would otherwise do
 *   mid-character); its pieces go into the async iterable as they come.
 * - **Stopping**: the model's end-of-turn token, `maxTokens`, the context budget, or `signal`: a stopping
 *   criterion checked after each token ends generation at once; the stream then ends without an error,
 *   keeping the pieces already yielded (nothing more is yielded after the abort). Leaving the loop early
 *   (`break`) stops generation the same way.
 * - **JSON**: transformers.js has no constrained decoding; `json: true` adds an instruction to answer
 *   with one JSON object only to the system message. The caller parses and checks it.
 * - One generation at a time per loaded model (the ONNX session is not re-entrant on WASM): a second
 *   `stream` waits for the first to finish.
 */
import { AutoModelForCausalLM, StoppingCriteria, Tensor, TextStreamer, type PreTrainedModel, type PreTrainedTokenizer } from '@huggingface/transformers';
import { DocQaError } from '../../core/errors.ts';
import type { OnnxGeneratorEntry } from '../generator-catalogue.ts';
import { explainModelLoadError, type LoadOptions, type ModelSource } from '../model-source.ts';
import { loadPretrained } from '../pretrained.ts';
import type { GenerateRequest } from './generator.ts';
import { checkGenerateRequest, GenerationQueue, withJsonInstruction, type GenerationReport, type HostedGenerator } from './generation.ts';
/** A transformers.js generator: the host's generator interface. */
export type TransformersGenerator = HostedGenerator;

/** Why a piece of config says the model cannot write text. */
interface CausalConfig {
  model_type?: string;
  architectures?: string[];
}

function checkConfig(entry: OnnxGeneratorEntry, config: CausalConfig): void {
  const architectures = config.architectures ?? [];
  if (architectures.length > 0 && !architectures.some((a) => /ForCausalLM$|LMHeadModel$/.test(a))) {
    throw new DocQaError(
      'model-unsupported',
      `generator: ${entry.repo}/config.json describes ${architectures.join(', ')} (model_type "${config.model_type ?? '(none)'}"), not a text-generation model: choose a causal language model with a chat template (…ForCausalLM), such as Qwen2.5-0.5B-Instruct`,
    );
  }
}

/** Error messages of running out of memory: ONNX Runtime (native and WASM), V8 and the browser. */
const OUT_OF_MEMORY = /out of memory|\boom\b|bad_alloc|allocation failed|could not allocate|failed to allocate|cannot allocate|memory access out of bounds/i;

/**
 * Turns a loading or generation failure into a DocQaError a person can act on: a missing file named,
 * an architecture transformers.js cannot generate with, out of memory with what to do.
 */
export function explainGeneratorError(err: unknown, entry: OnnxGeneratorEntry, source: ModelSource): DocQaError {
  if (err instanceof DocQaError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (OUT_OF_MEMORY.test(message) || (err instanceof RangeError && /memory|buffer/i.test(message))) {
    return new DocQaError(
      'model-out-of-memory',
      `generator: ${entry.label} ran out of memory (${message.slice(0, 200)}): close other tabs or apps and try again, choose a smaller model, or use the extractive answer`,
      { cause: err },
    );
  }
  const explained = explainModelLoadError(err, entry, source, 'generator');
  if (explained.code === 'model-unsupported') {
    return new DocQaError(
      'model-unsupported',
      `${explained.message}: transformers.js cannot generate text with this architecture; choose a supported text-generation model such as Qwen2.5-0.5B-Instruct`,
      { cause: err },
    );
  }
  return explained;
}

/**
 * Loads the model's tokenizer and weights from `options.source` and returns a {@link HostedGenerator}.
 * Throws DocQaError 'model-files-missing' (naming the file), 'model-unsupported' (not a causal LM, an
 * architecture transformers.js does not run, or no chat template), 'model-out-of-memory', or
 * 'model-output-invalid' (the logits of a test input, computed at load, are NaN or ±Infinity).
 *
 * @example
 * const generator = await loadTransformersGenerator(QWEN2_5_0_5B_INSTRUCT, { source: { kind: 'hub' }, onProgress });
 * for await (const piece of generator.stream({ messages, signal })) answer.append(piece);
 */
export async function loadTransformersGenerator(entry: OnnxGeneratorEntry, options: LoadOptions): Promise<HostedGenerator> {
  const { tokenizer, network: model } = await loadPretrained<CausalConfig>(entry, options, {
    modelClass: AutoModelForCausalLM,
    checkConfig: (config) => checkConfig(entry, config),
    checkTokenizer(tokenizer) {
      if (!tokenizer.chat_template) {
        throw new DocQaError('model-unsupported', `generator: ${entry.repo}/tokenizer_config.json has no chat_template: choose an instruct (chat) model, which has one`);
      }
    },
    explain: (err) => explainGeneratorError(err, entry, options.source),
  });
  await checkLogits(entry, tokenizer, model, options.source);
  options.onProgress?.({ type: 'ready' });
  return createGenerator(entry, tokenizer, model, options.source);
}

/** Runs the model once on a short input and refuses NaN or infinite logits. */
async function checkLogits(entry: OnnxGeneratorEntry, tokenizer: PreTrainedTokenizer, model: PreTrainedModel, source: ModelSource): Promise<void> {
  const ids = tokenizer.encode('ready', { add_special_tokens: false });
  let logits: Tensor;
  try {
    ({ logits } = (await model({
      input_ids: new Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]),
      attention_mask: new Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]),
    })) as { logits: Tensor });
  } catch (err) {
    await model.dispose();
    throw explainGeneratorError(err, entry, source);
  }
  const data = logits.data as Float32Array;
  const bad = data.findIndex((x) => !Number.isFinite(x));
  if (bad >= 0) {
    await model.dispose();
    throw new DocQaError('model-output-invalid', `generator: ${entry.label} computed a ${data[bad]} logit for a test input: its weights are broken; download it again or choose another model`);
  }
}

/** Stops generation when `stopped()` turns true (checked after each new token). */
class StopWhen extends StoppingCriteria {
  constructor(private readonly stopped: () => boolean) {
    super();
  }

  override _call(inputIds: number[][]): boolean[] {
    const stop = this.stopped();
    return inputIds.map(() => stop);
  }
}

function createGenerator(entry: OnnxGeneratorEntry, tokenizer: PreTrainedTokenizer, model: PreTrainedModel, source: ModelSource): HostedGenerator {
  const generations = new GenerationQueue();
  let lastGeneration: GenerationReport | undefined;
  // The budget never exceeds the positions the model was built for (its config's max_position_embeddings):
  // past them a model's position tables run out (ONNX Runtime fails with a broadcast error).
  const positions = (model.config as { max_position_embeddings?: number } | undefined)?.max_position_embeddings;
  const contextTokens = positions && positions > 0 ? Math.min(entry.contextTokens, positions) : entry.contextTokens;
  const eos = new Set<number>([(model.generation_config as { eos_token_id?: number | number[] } | null)?.eos_token_id ?? []].flat());
  if (tokenizer.eos_token_id !== undefined && tokenizer.eos_token_id !== null) eos.add(tokenizer.eos_token_id);

  async function* stream(request: GenerateRequest): AsyncGenerator<string> {
    const { maxTokens, temperature } = checkGenerateRequest(request, 'generator');
    const messages = withJsonInstruction(request.messages, request.json);
    const signal = request.signal;
    if (signal?.aborted) return;
    let inputs: { input_ids: Tensor; attention_mask: Tensor };
    try {
      inputs = tokenizer.apply_chat_template(messages, { add_generation_prompt: true, return_dict: true }) as typeof inputs;
    } catch (err) {
      // A template may refuse a conversation (roles that do not alternate, a system role it lacks).
      throw new DocQaError('model-unsupported', `generator: ${entry.label}'s chat template refused the conversation: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const promptTokens = inputs.input_ids.dims[1]!;
    const room = contextTokens - promptTokens;
    if (room < 1) {
      throw new DocQaError('prompt-too-long', `generator: the prompt takes ${promptTokens} tokens, but ${entry.label} is given at most ${contextTokens} (prompt and answer together): send fewer or shorter passages`);
    }
    const maxNewTokens = Math.min(maxTokens, room);

    yield* generations.stream(
      signal,
      async ({ push, stopped }) => {
        let newTokens = 0;
        let lastToken: number | undefined;
        const streamer = new TextStreamer(tokenizer, {
          skip_prompt: true,
          skip_special_tokens: true,
          callback_function: push,
          token_callback_function: (tokens: bigint[]) => {
            newTokens += tokens.length;
            lastToken = Number(tokens.at(-1));
          },
        });
        await model.generate({
          ...inputs,
          max_new_tokens: maxNewTokens,
          do_sample: temperature > 0,
          ...(temperature > 0 ? { temperature } : {}),
          streamer,
          stopping_criteria: [new StopWhen(stopped)],
        });
        lastGeneration = {
          promptTokens,
          newTokens,
          stop: stopped() ? 'aborted' : lastToken !== undefined && eos.has(lastToken) ? 'end' : 'max-tokens',
        };
      },
      (err) => explainGeneratorError(err, entry, source),
    );
  }

  return {
    entry,
    model: { id: entry.id, label: entry.label, contextTokens },
    get lastGeneration() {
      return lastGeneration;
    },
    countTokens: async (text: string) => tokenizer.encode(text, { add_special_tokens: false }).length,
    stream,
    async dispose() {
      await generations.idle();
      await model.dispose();
    },
  };
}
