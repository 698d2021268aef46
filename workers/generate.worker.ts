import { expose } from 'comlink';
import wasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import multiThread from '@wllama/wllama/esm/multi-thread/wllama.wasm?url';
import singleThread from '@wllama/wllama/esm/single-thread/wllama.wasm?url';
import { installErrorTransfer } from '../src/core/error-transfer.ts';
import { createGenerateHandler } from '../src/models/generator/generate-handler.ts';
import { measureFreeCores } from '../src/models/host/free-cores.ts';
import { lazyWebLlmDeps } from '../src/models/webllm/webllm-runtime.ts';

installErrorTransfer();
// The WASM binaries the bundled onnxruntime-web and llama.cpp (wllama) need, served by the app (never a
// CDN); web-llm imported on the first WebLLM load (its model libraries come with its models).
// CPU-probe workers measure the free cores for ONNX Runtime's and llama.cpp's threads.
expose(createGenerateHandler({ wasmUrl, gguf: { singleThread, multiThread }, webllm: lazyWebLlmDeps(), measureCores: measureFreeCores }));
