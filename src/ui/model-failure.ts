import type { ErrorCode } from '../core/errors.ts';

/**
 * A model that did not load, said in a person's words: what happened and what to do (`importHint`: how
 * this kind of model is brought in without a download). The error's own
 * message (file names, hosts, what the browser said) stays available behind a "Details" toggle.
 */
export function failureInWords(code: ErrorCode | undefined, importHint = 'import the model from a folder'): string {
  switch (code) {
    case 'model-download-failed':
      return `The download did not finish: the connection dropped or the site did not answer. Check the connection and try again, or ${importHint}.`;
    case 'model-files-missing':
      return "Some of the model's files are missing. Import the model's folder again, or download it.";
    case 'model-unsupported':
    case 'webgpu-unavailable':
      return 'This browser or device cannot run this model. Choose another one.';
    case 'model-out-of-memory':
    case 'gpu-out-of-memory':
      return 'This device ran out of memory for this model. Close other tabs and try again, or choose a smaller model.';
    case 'storage-full':
      return "There is not enough storage left in this browser for the model's files. Free some space (delete another model) and try again.";
    case 'cancelled':
      return 'The download was stopped.';
    default:
      return 'Something went wrong while loading it. Try again; if it fails again, the details below say what the browser reported.';
  }
}

/**
 * Where a model runs, in words, from the worker's device line ("WASM (1 thread): no WebGPU adapter",
 * "WebGPU: probe 12 ms vs WASM 80 ms", "WASM: WebGPU stopped working (…)").
 */
export function deviceInWords(device: string): string {
  if (/^WebGPU/i.test(device)) return 'Runs on the graphics card.';
  if (/stopped working/i.test(device)) return 'Runs on the processor: the graphics card stopped working for it.';
  if (/no WebGPU|WebGPU unavailable|no adapter|not available|software fallback/i.test(device)) return 'Runs on the processor (this browser cannot use the graphics card), more slowly.';
  return 'Runs on the processor.';
}
