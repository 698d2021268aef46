import { existsSync } from 'node:fs';
import { CHROMIUM } from '../support/browser.ts';

/** Fails fast with an actionable message when the browser or the build is missing. */
export default function setup(): void {
  if (!existsSync(CHROMIUM)) throw new Error(`browser tests need Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  if (!existsSync('dist/index.html')) throw new Error('browser tests need the built app: run `npm run test:browser`, which builds first');
}
