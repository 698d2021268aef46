/**
 * A BERT-uncased style WordPiece tokenizer in the Hugging Face `tokenizers` JSON format
 * (`tokenizer.json`), plus the `tokenizer_config.json` that transformers.js reads beside it.
 */
import { CHAT_TOKENS, SPECIAL_TOKENS } from './vocabulary.ts';

function idOf(vocab: readonly string[]) {
  return (token: string): number => {
    const index = vocab.indexOf(token);
    if (index < 0) throw new Error(`tokenizer-files: ${token} is not in the vocabulary`);
    return index;
  };
}

const addedToken = (id: number, content: string) => ({
  id,
  content,
  single_word: false,
  lstrip: false,
  rstrip: false,
  normalized: false,
  special: true,
});

/** `tokenizer.json` for `vocab` (index = id; the special tokens must come first). */
export function tokenizerJson(vocab: readonly string[]): object {
  const id = idOf(vocab);
  const special = (token: string, typeId: number) => ({ SpecialToken: { id: token, type_id: typeId } });
  const sequence = (name: 'A' | 'B', typeId: number) => ({ Sequence: { id: name, type_id: typeId } });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content) => addedToken(id(content), content)),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [special('[CLS]', 0), sequence('A', 0), special('[SEP]', 0)],
      pair: [special('[CLS]', 0), sequence('A', 0), special('[SEP]', 0), sequence('B', 1), special('[SEP]', 1)],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [id('[CLS]')], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [id('[SEP]')], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((token, index) => [token, index])),
    },
  };
}

/** `tokenizer_config.json`: BertTokenizer, lowercase, 512 tokens at most. */
export function tokenizerConfig(): object {
  return {
    tokenizer_class: 'BertTokenizer',
    model_max_length: 512,
    do_lower_case: true,
    do_basic_tokenize: true,
    tokenize_chinese_chars: true,
    strip_accents: null,
    clean_up_tokenization_spaces: true,
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    mask_token: '[MASK]',
  };
}

/**
 * The tiny decoder's chat template: ChatML as Qwen2.5 writes it (`<|im_start|>role\ncontent<|im_end|>\n`
 * per message, then `<|im_start|>assistant\n` for the answer), without Qwen's default system message.
 */
export const CHAT_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/**
 * `tokenizer.json` for the tiny decoder: the same WordPiece model over `vocab` (which ends with the chat
 * markers), no template around a text (a chat template adds the markers), and a decoder that neither
 * cleans up spaces before punctuation nor otherwise rewrites earlier text, so decoding token by token is
 * prefix-stable (streamed pieces concatenate to the whole decoded text).
 */
export function decoderTokenizerJson(vocab: readonly string[]): object {
  const id = idOf(vocab);
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [...SPECIAL_TOKENS, ...CHAT_TOKENS].map((content) => addedToken(id(content), content)),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: null,
    decoder: { type: 'WordPiece', prefix: '##', cleanup: false },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((token, index) => [token, index])),
    },
  };
}

/** `tokenizer_config.json` for the tiny decoder: the chat template, `<|im_end|>` ends a turn (eos). */
export function decoderTokenizerConfig(): object {
  return {
    tokenizer_class: 'PreTrainedTokenizerFast',
    model_max_length: 512,
    clean_up_tokenization_spaces: false,
    bos_token: null,
    eos_token: '<|im_end|>',
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    chat_template: CHAT_TEMPLATE,
  };
}
