import { expose } from 'comlink';
import { installErrorTransfer } from '../src/core/error-transfer.ts';
import { createParseHandler } from '../src/ingest/parse-handler.ts';

installErrorTransfer();
expose(createParseHandler());
