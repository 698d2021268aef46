import { render } from 'preact';
import { App } from './ui/app.tsx';
import { startServiceWorker } from './ui/app-update.ts';
import { startLibrary } from './ui/start-library.ts';
import { applyTheme } from './ui/theme.ts';
import './ui/styles.css';

applyTheme();
startServiceWorker();
// Before the first render: the library worker loads its snapshots while the page draws itself.
void startLibrary();
render(<App />, document.getElementById('app')!);
