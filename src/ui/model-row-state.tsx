import type { ErrorCode } from '../core/errors.ts';
import { failureInWords } from './model-failure.ts';

/**
 * What a model's row says when its last load failed: what happened and what to do in plain words, Try
 * again, and the error's own words behind "Details".
 */
export function LoadFailure({ label, code, message, busy, onRetry, importHint }: { label: string; code: ErrorCode | undefined; message: string | undefined; busy: boolean; onRetry: () => void; importHint?: string }) {
  return (
    <div class="model-failed" role="alert">
      <p>
        Could not load <bdi>{label}</bdi>. {failureInWords(code, importHint)}
      </p>
      <p class="model-actions">
        <button type="button" disabled={busy} aria-label={`Try again ${label}`} onClick={onRetry}>
          Try again
        </button>
      </p>
      {message && (
        <details>
          <summary>Details</summary>
          <span class="model-error">{message}</span>
        </details>
      )}
    </div>
  );
}
