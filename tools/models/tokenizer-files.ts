/**
 * A BERT-uncased style WordPiece tokenizer in the Hugging Face `tokenizers` JSON format
 * (`tokenizer.json`), plus the `tokenizer_config.json` that transformers.js reads beside it.
 */
import { SPECIAL_TOKENS } from './vocabulary.ts';

/** `tokenizer.json` for `vocab` (index = id; the special tokens must come first). */
export function tokenizerJson(vocab: readonly string[]): object {
  const id = (token: string): number => {
    const index = vocab.indexOf(token);
    if (index < 0) throw new Error(`tokenizer-files: ${token} is not in the vocabulary`);
    return index;
  };
  const special = (token: string, typeId: number) => ({ SpecialToken: { id: token, type_id: typeId } });
  const sequence = (name: 'A' | 'B', typeId: number) => ({ Sequence: { id: name, type_id: typeId } });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content) => ({
      id: id(content),
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
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
