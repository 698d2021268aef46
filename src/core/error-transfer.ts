import { transferHandlers } from 'comlink';
import { reviveError, serializeError, type SerializedError } from './errors.ts';

/**
 * Errors cross the worker boundary as `{ name, code, message }` and are rebuilt as `DocQaError`, never
 * stringified. Replaces Comlink's own handler for thrown values (keeping its test for what a thrown value
 * is). Call once in the worker and once in the page.
 */
export function installErrorTransfer(): void {
  const original = transferHandlers.get('throw');
  if (!original) throw new Error('comlink: no handler for thrown values to replace');
  transferHandlers.set('throw', {
    canHandle: original.canHandle,
    serialize: (thrown: unknown) => [serializeError((thrown as { value: unknown }).value), []],
    deserialize: (serialized: unknown) => {
      throw reviveError(serialized as SerializedError);
    },
  });
}
