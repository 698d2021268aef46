import 'fake-indexeddb/auto';
import fc from 'fast-check';

// Property tests explore new random cases on every local run; CI (CI=true) uses a fixed seed so a
// submission's result is reproducible. FC_SEED=<n> replays a reported failure.
const seed = process.env.FC_SEED ?? (process.env.CI ? '20261130' : undefined);
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) });
