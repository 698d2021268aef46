import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeKeptOcrEngines, IDLE_MS, leaseOcrEngine } from '../../src/ingest/ocr/engine-pool.ts';
import type { OcrEngine } from '../../src/ingest/ocr/tesseract-engine.ts';

/** An engine that counts its starts and closes, and fails when told to (the pool's logic only: no OCR here). */
function engines() {
  const made = { started: 0, closed: 0, fail: false };
  const start = async (): Promise<OcrEngine> => {
    made.started++;
    return {
      recognise: async () => {
        if (made.fail) throw new Error('the engine broke');
        return { paragraphs: [], confidence: 0, width: 1, height: 1 };
      },
      close: async () => void made.closed++,
    };
  };
  return { made, start };
}

describe('OCR engines kept between files', () => {
  afterEach(async () => {
    await closeKeptOcrEngines();
    vi.useRealTimers();
  });

  it('gives the engine of one file to the next, and a second one to a file read meanwhile', async () => {
    const { made, start } = engines();
    const first = await leaseOcrEngine(start);
    const during = await leaseOcrEngine(start);
    expect(made.started).toBe(2);
    await first.close();
    await during.close();
    const next = await leaseOcrEngine(start);
    await next.recognise(new Uint8Array());
    expect(made.started).toBe(2);
    expect(made.closed).toBe(0);
    await next.close();
  });

  it('closes an engine that failed instead of keeping it, and closes kept ones once unused for a while', async () => {
    vi.useFakeTimers();
    const { made, start } = engines();
    const broken = await leaseOcrEngine(start);
    made.fail = true;
    await expect(broken.recognise(new Uint8Array())).rejects.toThrow('the engine broke');
    await broken.close();
    expect(made.closed).toBe(1);
    made.fail = false;
    const fresh = await leaseOcrEngine(start);
    expect(made.started).toBe(2);
    await fresh.close();
    await vi.advanceTimersByTimeAsync(IDLE_MS - 100);
    expect(made.closed).toBe(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(made.closed).toBe(2);
    await leaseOcrEngine(start);
    expect(made.started).toBe(3);
  });
});
