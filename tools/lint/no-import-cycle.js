/**
 * ESLint rule: no file may import itself through other files, type-only imports included (plugins
 * such as import-x skip type imports, but a type circle still means two files are one concern).
 *
 * The graph is every relative `import`/`export … from`/`import()` specifier of the linted project,
 * read from the source text once per lint run; a file is reported when it lies on a circle, with
 * the shortest circle through it.
 */
import fs from 'node:fs';
import path from 'node:path';

const SPECIFIER = /(?:^|[\s;}])(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
const cache = new Map();

/** Relative imports of `file` that name an existing file, as absolute paths. */
function importsOf(file) {
  let found = cache.get(file);
  if (found) return found;
  found = [];
  cache.set(file, found);
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return found;
  }
  for (const match of text.matchAll(SPECIFIER)) {
    const target = path.resolve(path.dirname(file), match[1] ?? match[2]);
    if (fs.existsSync(target) && fs.statSync(target).isFile()) found.push(target);
  }
  return found;
}

/** The shortest path from `start` back to itself, as a list of files, or undefined. */
function circleThrough(start) {
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const next of importsOf(file)) {
      if (next === start) {
        const route = [file];
        for (let at = previous.get(file); at !== undefined; at = previous.get(at)) route.unshift(at);
        return route;
      }
      if (!previous.has(next)) {
        previous.set(next, file);
        queue.push(next);
      }
    }
  }
  return undefined;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Disallow import circles, type-only imports included.' },
    messages: { circle: 'Import circle: {{route}}. Move what both sides need into a file of its own.' },
    schema: [],
  },
  create(context) {
    return {
      Program(node) {
        const file = path.resolve(context.filename);
        const route = circleThrough(file);
        if (!route) return;
        const cwd = context.cwd;
        const names = [...route, file].map((f) => path.relative(cwd, f));
        context.report({ node, messageId: 'circle', data: { route: names.join(' → ') } });
      },
    };
  },
};
