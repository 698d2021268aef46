// The model catalogue: what the embedder follows for each model, as each model card says.
import { describe, expect, it } from 'vitest';
import { asModelId } from '../../src/core/ids.ts';
import { BGE_SMALL_EN, CATALOGUE, downloadSize, findModel, localModel, MULTILINGUAL_E5_SMALL } from '../../src/models/catalogue.ts';

describe('catalogue', () => {
  it('holds bge-small-en-v1.5 (CLS, query instruction only) and multilingual-e5-small (mean, query:/passage:)', () => {
    expect(BGE_SMALL_EN).toMatchObject({ repo: 'Xenova/bge-small-en-v1.5', dims: 384, pooling: 'cls', normalize: true, passagePrefix: '', maxTokens: 512 });
    expect(BGE_SMALL_EN.queryPrefix).toBe('Represent this sentence for searching relevant passages: ');
    expect(MULTILINGUAL_E5_SMALL).toMatchObject({ dims: 384, pooling: 'mean', queryPrefix: 'query: ', passagePrefix: 'passage: ' });
    expect(new Set(CATALOGUE.map((m) => m.id)).size).toBe(CATALOGUE.length);
    expect(findModel(asModelId('multilingual-e5-small'))).toBe(MULTILINGUAL_E5_SMALL);
    expect(findModel(asModelId('nope'))).toBeUndefined();
  });

  it('lists the q8 files the WASM device downloads, with a total size', () => {
    for (const m of CATALOGUE) {
      expect(m.files.map((f) => f.path).sort()).toEqual(['config.json', 'onnx/model_quantized.onnx', 'tokenizer.json', 'tokenizer_config.json']);
      expect(downloadSize(m).bytes).toBeGreaterThan(30_000_000);
      expect(m.retrieval?.source).toBeTruthy();
    }
  });

  it('describes a local folder with defaults: fp32 weights, no prefixes, normalised, 512 tokens', () => {
    const m = localModel({ folder: 'tiny-encoder', dims: 32, pooling: 'mean' });
    expect(m).toMatchObject({ id: 'local:tiny-encoder', repo: 'tiny-encoder', dtype: 'fp32', normalize: true, queryPrefix: '', passagePrefix: '', maxTokens: 512, retrieval: null });
    expect(m.files.map((f) => f.path)).toContain('onnx/model.onnx');
    expect(localModel({ folder: 'x', dims: 8, pooling: 'cls', dtype: 'q8' }).files.map((f) => f.path)).toContain('onnx/model_quantized.onnx');
  });
});
