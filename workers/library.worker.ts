import { expose } from 'comlink';
import { installErrorTransfer } from '../src/core/error-transfer.ts';
import { createLibraryHandler } from '../src/library/library-handler.ts';

installErrorTransfer();
expose(createLibraryHandler());
