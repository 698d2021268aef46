import { transferHandlers } from 'comlink';
import { DocQaError, reviveError, serializeError, type SerializedError } from './errors.ts';

/**
 * Errors cross the worker boundary as `{ name, code, message }` and are rebuilt as {@link DocQaError},
 * never stringified. Call once in the worker and once in the page.
 */
export function installErrorTransfer(): void {
  transferHandlers.set('throw', {
    canHandle: (value: unknown): value is { value: unknown } => typeof value === 'object' && value !== null && 'value' in value,
    serialize: ({ value }: { value: unknown }) => [serializeError(value), []],
    deserialize: (serialized: SerializedError) => {
      throw reviveError(serialized);
    },
  } as Parameters<typeof transferHandlers.set>[1]);
}

export { DocQaError };
