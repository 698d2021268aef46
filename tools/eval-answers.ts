/**
 * The answer evaluation of `npm run eval -- --answers [--generator extractive|quote|<folder>] [--limit N]
 * [--max-tokens N] [--context-tokens N]`: which answerer writes the answers, and the lines it prints.
 * `extractive` is the app's extractive answer (the default); `quote` is the deterministic baseline of
 * `src/eval/quote-generator.ts` (not a model: it quotes the best sentence of each top passage with its
 * [n], which measures the citation checker and the context without a model); `restate` writes the
 * question back as the answer with no citation (a paraphrase of the evidence for SciFact's claims: it
 * measures the checker's own citations, `attributed_sentence_rate` and `citation_precision`); anything else is a
 * transformers.js text-generation model folder, loaded with the app's `loadTransformersGenerator`. Both
 * generators write through the app's LLM answerer (context, prompt, checked citations).
 */
import { extractiveAnswerer, type Answerer } from '../src/generate/answerer.ts';
import { createLlmAnswerer } from '../src/generate/llm-answerer.ts';
import type { Generator } from '../src/models/generator/generator.ts';
import { openBrowserGenerator, type BrowserTiming } from './browser-generator.ts';
import type { BeirDoc, Claim } from '../src/eval/beir.ts';
import { evaluateGeneratedAnswers, type GeneratedAnswerReport } from '../src/eval/evaluate-generated.ts';
import type { IndexedCollection } from '../src/eval/evaluate.ts';
import { QuoteGenerator } from '../src/eval/quote-generator.ts';
import { ScriptedGenerator } from '../src/models/generator/scripted-generator.ts';
import { loadFolderGenerator } from './model-folder.ts';

export interface AnswerEvalArgs {
  /** 'extractive' (default), 'quote', 'restate', or a model folder or `.gguf` file. */
  generator?: string;
  /** Claims to evaluate (the first N with evidence). Default all. */
  limit?: number;
  /** Most tokens an answer may take. Default the LLM answerer's (512, at most a quarter of the context). */
  maxTokens?: number;
  /** A model folder's context window. Default its max_position_embeddings, at most 4,096. */
  contextTokens?: number;
}

/** A whole number ≥ 1 from a flag, or an error naming the flag. */
export function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} must be a whole number of at least 1, not "${value}"`);
  return n;
}

/** The answerer chosen by the flags, loaded (a model folder is loaded here, so a wrong one fails before indexing). */
export interface ChosenAnswerer {
  answerer: Answerer;
  id: string;
  /** A generator wrote the answers: the citation checker's figures apply. */
  checked: boolean;
  dispose?: () => Promise<void>;
}

/** A model the eval runs: a transformers.js folder in Node, or a `.gguf` file on llama.cpp in Chromium. */
export interface ChosenGenerator {
  generator: Generator;
  /** The page's timings of each generation (GGUF in Chromium only). */
  timings?: BrowserTiming[];
  dispose: () => Promise<void>;
}

/** `name`: a `.gguf` file (run in Chromium by the app's generate worker) or a transformers.js model folder. */
export async function chooseGenerator(name: string, contextTokens?: number): Promise<ChosenGenerator> {
  if (/\.gguf$/i.test(name)) {
    const opened = await openBrowserGenerator(name, contextTokens ? { contextTokens } : {});
    return { generator: opened, timings: opened.timings, dispose: () => opened.dispose() };
  }
  const loaded = await loadFolderGenerator(name, contextTokens);
  return { generator: loaded, dispose: () => loaded.dispose() };
}

export async function chooseAnswerer(args: AnswerEvalArgs): Promise<ChosenAnswerer> {
  const name = args.generator ?? 'extractive';
  if (name === 'extractive') return { answerer: extractiveAnswerer, id: 'extractive', checked: false };
  let generator: Generator;
  let dispose: (() => Promise<void>) | undefined;
  if (name === 'quote') {
    generator = new QuoteGenerator();
  } else if (name === 'restate') {
    generator = new ScriptedGenerator((messages) => /^Question: (.*)$/mu.exec(messages.at(-1)?.content ?? '')?.[1] ?? '', { model: { id: 'restate', label: 'restate' } });
  } else {
    ({ generator, dispose } = await chooseGenerator(name, args.contextTokens));
  }
  return { answerer: createLlmAnswerer({ generator, maxTokens: args.maxTokens }), id: generator.model.id, checked: true, dispose };
}

const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)} %`);

/** Runs the answer evaluation and prints its lines; returns the figures for the JSON line. */
export async function runAnswerEval(indexed: IndexedCollection, claims: readonly Claim[], corpus: readonly BeirDoc[], args: AnswerEvalArgs, chosen?: ChosenAnswerer): Promise<GeneratedAnswerReport> {
  const { answerer, id, checked, dispose } = chosen ?? (await chooseAnswerer(args));
  try {
    const r = await evaluateGeneratedAnswers(indexed, claims, corpus, {
      answerer,
      generator: id,
      checked,
      limit: args.limit,
      onClaim: (done, total) => {
        if (done % 25 === 0 || done === total) process.stderr.write(`answers: ${done}/${total} claims\n`);
      },
    });
    console.log(`answers      ${r.answer_generator}: ${r.answer_claims} claims with evidence, answered ${pct(r.answered_rate)} (${r.sentences_per_answer} sentences, ${r.sources_per_answer} sources each)`);
    console.log(`evidence     Sources include an evidence document ${pct(r.cited_evidence_rate)} (${pct(r.cited_evidence_rate_answered)} of answers); citation precision ${pct(r.citation_precision)}; rationale sentences ${pct(r.evidence_sentence_rate)} of quotes`);
    if (checked) {
      console.log(`checker      ${pct(r.cited_sentence_rate)} of sentences cited, ${pct(r.supported_sentence_rate)} of those supported, ${pct(r.attributed_sentence_rate)} cited by the checker; removed ${r.removed_citations_per_answer} citations per answer (${r.removed_no_such_passage} no such passage, ${r.removed_not_supported} not supported)`);
    }
    console.log(`answer time  p50 ${r.ms_per_answer_p50} ms, p95 ${r.ms_per_answer_p95} ms per answer (retrieval p50 ${r.retrieve_ms_p50} ms)`);
    return r;
  } finally {
    await dispose?.();
  }
}
