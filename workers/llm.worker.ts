/**
 * The WebLLM worker: web-llm's own handler runs the engine (model download, WebGPU, generation) here,
 * off the page's thread; `src/models/webllm/webllm-client.ts` is its client.
 */
import { WebWorkerMLCEngineHandler } from '@mlc-ai/web-llm';

const handler = new WebWorkerMLCEngineHandler();
self.onmessage = (event: MessageEvent) => handler.onmessage(event);
