import { expose } from 'comlink';
import wasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import { installErrorTransfer } from '../src/core/error-transfer.ts';
import { createEmbedHandler } from '../src/models/encoder/embed-handler.ts';
import { measureFreeCores } from '../src/models/host/free-cores.ts';

installErrorTransfer();
// The WASM binary the bundled onnxruntime-web needs, served by the app (never a CDN); its threads are
// sized by the cores measured free (CPU-probe workers).
expose(createEmbedHandler({ wasmUrl, measureCores: measureFreeCores }));
