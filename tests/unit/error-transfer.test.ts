import { expose, wrap } from 'comlink';
import { describe, expect, it } from 'vitest';
import { installErrorTransfer } from '../../src/core/error-transfer.ts';
import { DocQaError } from '../../src/core/errors.ts';

describe('errors across the worker boundary', () => {
  it('arrive as DocQaError with their code and message; other values pass untouched', async () => {
    installErrorTransfer();
    const { port1, port2 } = new MessageChannel();
    expose(
      {
        fail: () => {
          throw new DocQaError('password-protected', 'a.pdf: password-protected: remove the password and add it again');
        },
        crash: () => {
          throw new TypeError('x is undefined');
        },
        echo: (v: unknown) => v,
      },
      port1,
    );
    const remote = wrap<{ fail(): void; crash(): void; echo(v: unknown): unknown }>(port2);
    const failed = await remote.fail().catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(DocQaError);
    expect(failed).toMatchObject({ code: 'password-protected', message: 'a.pdf: password-protected: remove the password and add it again' });
    await expect(remote.crash()).rejects.toMatchObject({ code: 'internal', message: 'an unexpected problem stopped it (x is undefined): try again, and reload the page if it happens again' });
    await expect(remote.echo({ value: 1 })).resolves.toEqual({ value: 1 });
    port1.close();
    port2.close();
  });
});
