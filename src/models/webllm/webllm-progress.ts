/**
 * web-llm's load reports (`InitProgressCallback`: `{ progress, timeElapsed, text }`) as the app's
 * {@link LoadProgress} events. web-llm 0.2.86 loads in stages, each with its own 0–1 `progress` and a
 * text we recognise (tvmjs `fetchTensorCacheInternal`, `LLMChatPipeline`, `MLCEngine.reloadInternal`):
 *
 * | text | stage | events |
 * | --- | --- | --- |
 * | `Fetching param cache[i/n]: 350MB fetched. 24% completed, ...` | `download` | `file` and `total` (bytes) for the weights |
 * | `Loading model from cache[i/n]: ...` | `gpu` | (`file-done` for the weights, when they were downloaded) |
 * | `Loading GPU shader modules[i/n]: ...` | `shaders` | |
 * | `Finish loading on WebGPU - ...` | `ready` | |
 * | anything else (`Start to fetch params`, ...) | `prepare` | |
 *
 * Every report also becomes a `stage` event with `overall`, a monotonic 0–1 figure for one progress
 * bar: the download is 0–0.8, moving the weights to the GPU 0.8–0.9, compiling shaders 0.9–1. A model
 * already cached skips the download (its bar jumps to 0.8). Bytes: web-llm reports the fraction exactly
 * and megabytes rounded up, so the total is the model's approximate size when given, else derived from
 * the first report (megabytes / fraction).
 */
import type { InitProgressReport } from '@mlc-ai/web-llm';
import type { LoadProgress } from '../model-source.ts';

export type WebLlmStage = 'prepare' | 'download' | 'gpu' | 'shaders' | 'ready';

export type WebLlmLoadProgress =
  | LoadProgress
  /** One report of web-llm: the stage, its own fraction, the whole load's, and web-llm's text. */
  | { type: 'stage'; stage: WebLlmStage; fraction: number; overall: number; text: string };

const SPANS: Record<WebLlmStage, [number, number]> = {
  prepare: [0, 0],
  download: [0, 0.8],
  gpu: [0.8, 0.9],
  shaders: [0.9, 1],
  ready: [1, 1],
};

const MB = 1024 * 1024;

/** The stage of a web-llm report's text. */
export function stageOf(text: string): WebLlmStage {
  if (text.startsWith('Fetching param cache')) return 'download';
  if (text.startsWith('Loading model from cache')) return 'gpu';
  if (text.startsWith('Loading GPU shader modules')) return 'shaders';
  if (text.startsWith('Finish loading')) return 'ready';
  return 'prepare';
}

export interface WebLlmProgressTracker {
  /** web-llm's `initProgressCallback`. */
  report(report: InitProgressReport): void;
  /** The weights were being downloaded and did not finish (what a failed load must delete). */
  readonly downloadUnfinished: boolean;
  /** The engine is ready: 100 % (`total` loaded = total when a size is known), then `ready`. */
  finish(): void;
}

/**
 * A tracker for loading `modelId`. `approximateBytes` (the model's download size, when known) sizes
 * the weights' `file` events.
 */
export function trackWebLlmProgress(modelId: string, approximateBytes: number | undefined, onProgress?: (event: WebLlmLoadProgress) => void): WebLlmProgressTracker {
  const file = `${modelId} weights`;
  let total = approximateBytes && approximateBytes > 0 ? approximateBytes : 0;
  let downloadSeen = false;
  let downloadDone = false;
  let overall = 0;
  const emit = (event: WebLlmLoadProgress) => onProgress?.(event);
  const stage = (s: WebLlmStage, fraction: number, text: string) => {
    const [from, to] = SPANS[s];
    if (s !== 'prepare') overall = Math.max(overall, from + (to - from) * fraction);
    emit({ type: 'stage', stage: s, fraction, overall, text });
  };
  const downloadFinished = () => {
    if (!downloadSeen || downloadDone) return;
    downloadDone = true;
    emit({ type: 'file-done', file });
    emit({ type: 'total', loaded: total, total });
  };
  return {
    report({ progress, text }) {
      const fraction = Number.isFinite(progress) ? Math.min(1, Math.max(0, progress)) : 0;
      const s = stageOf(text);
      if (s === 'download') {
        downloadSeen = true;
        const mb = Number(/\]: (\d+)MB fetched/.exec(text)?.[1] ?? 0);
        if (total === 0 && mb > 0 && fraction > 0) total = Math.round((mb * MB) / fraction);
        const loaded = Math.round(fraction * total);
        emit({ type: 'file', file, loaded, total });
        emit({ type: 'total', loaded, total });
        if (fraction >= 1) downloadFinished();
      } else if (s !== 'prepare') {
        downloadFinished();
      }
      stage(s, fraction, text);
    },
    get downloadUnfinished() {
      return downloadSeen && !downloadDone;
    },
    finish() {
      downloadFinished();
      if (overall < 1) stage('ready', 1, 'ready');
      if (!downloadSeen && total > 0) emit({ type: 'total', loaded: total, total });
      emit({ type: 'ready' });
    },
  };
}
