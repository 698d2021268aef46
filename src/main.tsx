import { render } from 'preact';
import { registerSW } from 'virtual:pwa-register';
import { App } from './ui/app.tsx';
import { applyTheme } from './ui/theme.ts';
import './ui/styles.css';

applyTheme();
registerSW({ immediate: true });
render(<App />, document.getElementById('app')!);
