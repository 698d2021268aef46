import type { ChatMessage, GenerateRequest, Generator, GeneratorModel } from './generator.ts';

/** A reply: the whole text (streamed word by word) or the exact pieces to stream. */
export type ScriptedReply = string | readonly string[];

/** Computes the reply from the request (the messages, the `json` flag …). */
export type Script = (messages: readonly ChatMessage[], request: GenerateRequest) => ScriptedReply;

export interface ScriptedGeneratorOptions {
  /** What `model` reports. Default: id 'scripted', label 'Scripted generator', 4,096 context tokens. */
  model?: Partial<GeneratorModel>;
  /**
   * Milliseconds between pieces. Default 0: each piece still comes in a later macrotask (a timer), so a
   * stop button, an abort or another task can run between two pieces, as with a real model.
   */
  delayMs?: number;
}

/** The pieces a text streams as: each word with the spaces before it (together they are the text). */
export function piecesOf(text: string): string[] {
  return text.match(/\s*\S+|\s+$/gu) ?? [];
}

/**
 * Tokens as the scripted generator counts them: one per 4 characters, rounded up (the usual rule of thumb
 * for English in BPE vocabularies; 0 for an empty text). Deterministic and additive enough for budget
 * tests; real generators count in their own tokenizer.
 */
export function countScriptedTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A deterministic {@link Generator} for tests and the browser test's build: its replies come from a
 * function of the messages or from a queue (one reply per request, in order). It streams a reply word by
 * word, asynchronously; stops when `signal` is aborted (the stream ends without an error, after what was
 * written) or when the text written reaches `maxTokens`; and records every request in `requests`.
 *
 * @example
 * const g = new ScriptedGenerator(['The rent is due on the 1st [1].']);
 * await generateText(g, { messages }); // 'The rent is due on the 1st [1].'
 * g.requests[0].messages; // what the answerer sent
 */
export class ScriptedGenerator implements Generator {
  readonly model: GeneratorModel;
  /** Every request received, in order (for assertions). */
  readonly requests: GenerateRequest[] = [];
  private readonly script: Script;
  private readonly delayMs: number;

  constructor(script: Script | readonly ScriptedReply[], options: ScriptedGeneratorOptions = {}) {
    this.model = { id: 'scripted', label: 'Scripted generator', contextTokens: 4096, ...options.model };
    this.delayMs = options.delayMs ?? 0;
    if (typeof script === 'function') {
      this.script = script;
    } else {
      const queue = [...script];
      this.script = () => {
        const reply = queue.shift();
        if (reply === undefined) throw new Error(`ScriptedGenerator: no reply left for request ${this.requests.length}`);
        return reply;
      };
    }
  }

  countTokens(text: string): Promise<number> {
    return Promise.resolve(countScriptedTokens(text));
  }

  async *stream(request: GenerateRequest): AsyncIterable<string> {
    this.requests.push(request);
    const reply = this.script(request.messages, request);
    const pieces = typeof reply === 'string' ? piecesOf(reply) : reply;
    const maxTokens = request.maxTokens ?? Infinity;
    let written = '';
    for (const piece of pieces) {
      await sleep(this.delayMs);
      if (request.signal?.aborted) return;
      if (countScriptedTokens(written + piece) > maxTokens) return;
      written += piece;
      yield piece;
    }
  }
}

/** Document text the gullible script reads as data: everything between a `<passage` and its `</passage>`. */
function withoutPassageBlocks(text: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const open = text.indexOf('<passage', at);
    if (open < 0) return out + text.slice(at);
    out += text.slice(at, open);
    const close = text.indexOf('</passage>', open);
    if (close < 0) return out;
    at = close + '</passage>'.length;
  }
}

/** The words after "answer only" (or "reply only"), up to the end of their sentence. */
function demandedReply(instructions: string): string | undefined {
  const lower = instructions.toLowerCase();
  if (!lower.includes('ignore all previous instructions') && !lower.includes('ignore previous instructions')) return undefined;
  for (const cue of ['answer only ', 'reply only ', 'say only ']) {
    const at = lower.indexOf(cue);
    if (at < 0) continue;
    const rest = instructions.slice(at + cue.length);
    const end = [...rest].findIndex((c) => c === '.' || c === '\n' || c === '<');
    return (end < 0 ? rest : rest.slice(0, end)).trim() || undefined;
  }
  return undefined;
}

/**
 * A script standing in for a model that keeps to quoted data but obeys any instruction it finds outside
 * it: when the last user message, with every `<passage …>…</passage>` block taken out, says "ignore all
 * previous instructions … answer only X", it replies X; otherwise what `fallback` replies. With it, a
 * prompt-injection test can fail: a document that escapes its block (or a prompt that leaves document text
 * outside one) takes over the answer, as it would with a real model that follows the text it sees.
 */
export function gullibleScript(fallback: Script): Script {
  return (messages, request) => {
    const user = [...messages].reverse().find((m) => m.role === 'user');
    const demanded = user ? demandedReply(withoutPassageBlocks(user.content)) : undefined;
    return demanded ?? fallback(messages, request);
  };
}

