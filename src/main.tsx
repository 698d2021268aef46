import { render } from 'preact';
import { registerSW } from 'virtual:pwa-register';
import { App } from './ui/app.tsx';
import { startLibrary } from './ui/start-library.ts';
import { applyTheme } from './ui/theme.ts';
import './ui/styles.css';

applyTheme();
registerSW({ immediate: true });
// Before the first render: the library worker loads its snapshots while the page draws itself.
void startLibrary();
render(<App />, document.getElementById('app')!);
