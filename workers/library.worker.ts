import { expose } from 'comlink';
import { installErrorTransfer } from '../src/core/error-transfer.ts';
import { createLibraryHandler } from '../src/library/library-handler.ts';

installErrorTransfer();
// Events for this tab's page alone travel beside Comlink's messages (Comlink ignores messages without its id).
expose(createLibraryHandler((event) => self.postMessage(event)));
