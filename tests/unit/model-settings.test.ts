import { describe, expect, it } from 'vitest';
import { ModelSettings } from '../../src/models/setup/model-settings.ts';
import { DocQaError } from '../../src/core/errors.ts';

/** The settings store's get/put over a Map (the store itself is tested in settings-store tests). */
function memoryStore() {
  const values = new Map<string, unknown>();
  return { values, get: async (key: string) => values.get(key), put: async (key: string, value: unknown) => void values.set(key, value) };
}

describe('model settings', () => {
  it('reads a damaged record as no setting', async () => {
    const store = memoryStore();
    store.values.set('answer', { generator: { kind: 'transformers' } });
    store.values.set('semantic', 'not a record');
    const settings = new ModelSettings(store);
    expect(await settings.get('answer')).toEqual({});
    expect(await settings.get('semantic')).toEqual({});
  });

  it('reads back what it wrote', async () => {
    const settings = new ModelSettings(memoryStore());
    const imported = { id: 'local/x', repo: 'local/x', format: 'onnx', dtype: 'q8', files: [] };
    await settings.put('answer-imports', { imported: [imported] } as never);
    expect(await settings.get('answer-imports')).toEqual({ imported: [imported] });
  });

  it('refuses a record it would not read back, and keeps the one before', async () => {
    const store = memoryStore();
    const settings = new ModelSettings(store);
    await settings.put('answer', { generator: { kind: 'webllm', model: 'a' } } as never);
    // An imported entry of a format the check does not know: before, it was written and vanished on the next read.
    const refused = settings.put('answer-imports', { imported: [{ id: 'local/y', repo: 'local/y', format: 'safetensors', files: [] }] } as never);
    await expect(refused).rejects.toBeInstanceOf(DocQaError);
    await expect(refused).rejects.toMatchObject({ code: 'invalid-setting' });
    await expect(settings.put('answer', { generator: { kind: 'transformers' } } as never)).rejects.toMatchObject({ code: 'invalid-setting' });
    expect(store.values.has('answer-imports')).toBe(false);
    expect(await settings.get('answer')).toEqual({ generator: { kind: 'webllm', model: 'a' } });
  });
});
