import { expose } from 'comlink';
import { installErrorTransfer } from '../src/core/error-transfer.ts';
import { createLibraryHandler } from '../src/library/library-handler.ts';

installErrorTransfer();
// The page names the worker after the library it opens: `library` (the default one) or `library:<id>`.
const libraryId = self.name.startsWith('library:') ? self.name.slice('library:'.length) : undefined;
// Events for this tab's page alone travel beside Comlink's messages (Comlink ignores messages without its id).
expose(createLibraryHandler((event) => self.postMessage(event), libraryId));
