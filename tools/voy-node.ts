/**
 * voy-search 0.6.3 in Node (the vector bench, the evaluation's --vector-index voy, unit tests). Its package is a bundler build
 * (`voy_search.js` imports the .wasm as an ES module, which plain Node cannot), so this loads the
 * wasm-bindgen glue (`voy_search_bg.js`) and instantiates `voy_search_bg.wasm` with it by hand.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface VoyResource {
  embeddings: Array<{ id: string; title: string; url: string; embeddings: number[] }>;
}

export interface VoyIndex {
  search(query: Float32Array, k: number): { neighbors: Array<{ id: string }> };
  serialize(): string;
  free(): void;
}

export interface VoyModule {
  Voy: { new (resource?: VoyResource): VoyIndex; deserialize(serialized: string): VoyIndex };
}

let loaded: Promise<VoyModule> | undefined;

/** The voy module, instantiated once. */
export function loadVoy(): Promise<VoyModule> {
  loaded ??= (async () => {
    const dir = dirname(createRequire(import.meta.url).resolve('voy-search/package.json'));
    const glue = (await import(pathToFileURL(join(dir, 'voy_search_bg.js')).href)) as VoyModule & { __wbg_set_wasm(exports: unknown): void };
    const bytes = await readFile(join(dir, 'voy_search_bg.wasm'));
    const { instance } = await WebAssembly.instantiate(bytes, { './voy_search_bg.js': glue as unknown as WebAssembly.ModuleImports });
    glue.__wbg_set_wasm(instance.exports);
    return glue;
  })();
  return loaded;
}
