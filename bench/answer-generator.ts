/**
 * `npm run bench -- answer --generator <file.gguf>`: a real GGUF model on the app's generate worker in
 * Chromium (llama.cpp in WebAssembly; `tools/browser-generator.ts`), timed step by step over fixed data:
 * SciFact's first QUERIES test queries (a generated corpus without SciFact), each asked as a follow-up
 * of the one before. Per step, as the page timed it:
 *
 * - **rewrite** and **expansion**: the JSON steps as the app builds them (messages, shape, budget);
 * - **answer**: the LLM answerer's prompt over the question's five passages, written to the end.
 *
 * For each: time to the first piece (prompt processing, then one token), prompt tokens per second
 * (prompt tokens ÷ that time; the tokens counted by the model, plus a few per message for the chat
 * template) and pieces per second after the first (llama.cpp yields a piece per token, except where a
 * character spans two). Also the load time and the memory the model adds to Chromium (resident bytes of
 * its processes after the load, less before). One round: a model's generation is slow enough on this
 * machine that a query's steps are its own repeats; median and range over the queries.
 */
import type { Passage } from '../src/core/types.ts';
import { indexCollection } from '../src/eval/evaluate.ts';
import { createLlmAnswerer } from '../src/generate/llm-answerer.ts';
import { generateText, type ChatMessage, type GenerateRequest, type Generator } from '../src/models/generator/generator.ts';
import { rewriteMessages, STANDALONE_SHAPE } from '../src/question/follow-up.ts';
import { expansionMessages, expansionShape } from '../src/question/query-expansion.ts';
import { retrievePassages } from '../src/retrieve/retrieve.ts';
import { openBrowserGenerator, type BrowserGenerator } from '../tools/browser-generator.ts';
import type { BenchContext } from './context.ts';
import { fixedData } from './answer.ts';
import { median, progress, round } from './util.ts';

const QUERIES = 4;
const STEPS = ['rewrite', 'expansion', 'answer'] as const;
type Step = (typeof STEPS)[number];

interface Timed {
  firstPieceMs: number;
  promptTokens: number;
  piecesPerS: number;
}

/** Tokens of the messages as the model counts them, plus 4 a message for its chat template's markers. */
async function promptTokens(generator: Generator, messages: readonly ChatMessage[]): Promise<number> {
  let n = 0;
  for (const m of messages) n += (await generator.countTokens(m.content)) + 4;
  return n;
}

/** A generator that records the messages of each request before passing it on. */
function recording(generator: BrowserGenerator, seen: ChatMessage[][]): Generator {
  return {
    model: generator.model,
    countTokens: (t) => generator.countTokens(t),
    stream(request: GenerateRequest) {
      seen.push([...request.messages]);
      return generator.stream(request);
    },
  };
}

export async function benchAnswerGenerator(ctx: BenchContext, file: string): Promise<void> {
  const { collection, queries, name } = await fixedData(ctx);
  const asked = queries.slice(0, QUERIES);
  progress(`answer --generator: indexing ${name}`);
  const indexed = await indexCollection(collection);
  const before = await (await import('../tools/browser-generator.ts')).chromiumResidentBytes();
  const t0 = performance.now();
  const generator = await openBrowserGenerator(file);
  try {
    const loadMs = performance.now() - t0;
    const memory = (await generator.residentBytes()) - before;
    const times: Record<Step, Timed[]> = { rewrite: [], expansion: [], answer: [] };
    const measure = async (step: Step, messages: readonly ChatMessage[], run: () => Promise<unknown>) => {
      const tokens = await promptTokens(generator, messages);
      const from = generator.timings.length;
      await run();
      const t = generator.timings[from];
      if (!t) return;
      times[step].push({ firstPieceMs: t.firstPieceMs, promptTokens: tokens, piecesPerS: t.pieces > 1 && t.totalMs > t.firstPieceMs ? ((t.pieces - 1) * 1000) / (t.totalMs - t.firstPieceMs) : Number.NaN });
    };
    for (const [i, question] of asked.entries()) {
      const previous = asked[(i + asked.length - 1) % asked.length]!;
      const rewrite = await rewriteMessages(question, [{ question: previous, answer: 'An earlier answer, cited [1].' }], generator.model.contextTokens - 128, (t) => generator.countTokens(t));
      await measure('rewrite', rewrite, () => generateText(generator, { messages: rewrite, json: true, shape: STANDALONE_SHAPE, temperature: 0, maxTokens: 128 }));
      const expansion = expansionMessages(question, 3);
      await measure('expansion', expansion, () => generateText(generator, { messages: expansion, json: true, shape: expansionShape(3), temperature: 0, maxTokens: 64 + 3 * 48 }));
      const hits = await indexed.search({ text: question }, 40);
      const passages: Passage[] = await retrievePassages(async () => hits, indexed.source, { text: question }, { k: 5, retrievers: indexed.retrievers });
      const seen: ChatMessage[][] = [];
      const answerer = createLlmAnswerer({ generator: recording(generator, seen), minRerankScore: -Infinity });
      const from = generator.timings.length;
      await answerer.answer(question, passages, indexed.lexical);
      const t = generator.timings[from];
      if (t && seen[0]) times.answer.push({ firstPieceMs: t.firstPieceMs, promptTokens: await promptTokens(generator, seen[0]), piecesPerS: t.pieces > 1 ? ((t.pieces - 1) * 1000) / (t.totalMs - t.firstPieceMs) : Number.NaN });
      progress(`answer --generator: query ${i + 1}/${asked.length}: ${STEPS.map((s) => `${s} first piece ${round(times[s].at(-1)?.firstPieceMs ?? Number.NaN, 0)} ms`).join(', ')}`);
    }
    const figure = (key: string, values: number[], digits: number) => {
      const finite = values.filter(Number.isFinite);
      if (!finite.length) return;
      ctx.record({ [key]: round(median(finite), digits), [`${key}_min`]: round(Math.min(...finite), digits), [`${key}_max`]: round(Math.max(...finite), digits) });
    };
    ctx.record({ gguf_model: generator.loaded.label, gguf_queries: asked.length, gguf_context_tokens: generator.model.contextTokens, gguf_load_ms: round(loadMs, 0), gguf_memory_mb: round(memory / 1024 / 1024, 0) });
    for (const step of STEPS) {
      figure(`gguf_${step}_first_piece_ms`, times[step].map((t) => t.firstPieceMs), 0);
      figure(`gguf_${step}_prompt_tokens`, times[step].map((t) => t.promptTokens), 0);
      figure(`gguf_${step}_prompt_tokens_per_s`, times[step].map((t) => (t.promptTokens * 1000) / t.firstPieceMs), 1);
      figure(`gguf_${step}_pieces_per_s`, times[step].map((t) => t.piecesPerS), 1);
    }
  } finally {
    await generator.dispose();
  }
}
