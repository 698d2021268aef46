import { describe, expect, it } from 'vitest';
import { deviceInWords, failureInWords } from '../../src/ui/model-failure.ts';

describe('model failures and devices in plain words', () => {
  it('says what happened and what to do for each kind of failure, without codes or hosts', () => {
    expect(failureInWords('model-download-failed')).toBe('The download did not finish: the connection dropped or the site did not answer. Check the connection and try again, or import the model from a folder.');
    expect(failureInWords('model-download-failed', 'import a .gguf file')).toMatch(/or import a \.gguf file\.$/);
    expect(failureInWords('storage-full')).toMatch(/^There is not enough storage/);
    expect(failureInWords('gpu-out-of-memory')).toMatch(/ran out of memory/);
    for (const code of [undefined, 'internal', 'model-files-missing', 'model-unsupported'] as const) expect(failureInWords(code)).not.toMatch(/WASM|WebGPU|hub|onnx|[a-z]+-[a-z]+-[a-z]+/);
  });

  it('names the processor or the graphics card from the worker device line', () => {
    expect(deviceInWords('WebGPU: probe 12 ms vs WASM 80 ms')).toBe('Runs on the graphics card.');
    expect(deviceInWords('WASM (1 thread: not cross-origin isolated): no WebGPU adapter')).toBe('Runs on the processor (this browser cannot use the graphics card), more slowly.');
    expect(deviceInWords('WASM (4 threads): the WebGPU adapter is a software fallback')).toMatch(/cannot use the graphics card/);
    expect(deviceInWords('WASM: WebGPU stopped working (device lost); continuing on WASM')).toBe('Runs on the processor: the graphics card stopped working for it.');
    expect(deviceInWords('WASM (2 threads): probe 9 ms vs WebGPU 30 ms')).toBe('Runs on the processor.');
  });
});
