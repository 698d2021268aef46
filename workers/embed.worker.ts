import { expose } from 'comlink';
import wasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import { installErrorTransfer } from '../src/core/error-transfer.ts';
import { createEmbedHandler } from '../src/models/encoder/embed-handler.ts';

installErrorTransfer();
// The WASM binary the bundled onnxruntime-web needs, served by the app (never a CDN).
expose(createEmbedHandler({ wasmUrl }));
