import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** A regular expression written in the source, with where it was found. */
export interface SourceRegex {
  /** "src/ingest/clean.ts:12" */
  where: string;
  source: string;
  flags: string;
}

/** Source folders and files whose code runs regular expressions over document text. */
export const TEXT_CODE = ['src/core', 'src/text', 'src/ingest', 'src/index', 'src/question', 'src/retrieve', 'src/generate'];

function filesUnder(root: string, path: string): string[] {
  const full = join(root, path);
  if (!statSync(full).isDirectory()) return /\.tsx?$/.test(path) ? [path] : [];
  return readdirSync(full).flatMap((name) => filesUnder(root, join(path, name)));
}

function literalOf(node: ts.RegularExpressionLiteral): { source: string; flags: string } {
  const text = node.text;
  const end = text.lastIndexOf('/');
  return { source: text.slice(1, end), flags: text.slice(end + 1) };
}

/**
 * Every regular expression literal in the given files and folders (found by parsing, so none is missed
 * or invented by a comment), and every `RegExp(...)` call, which cannot be checked and is reported
 * in `dynamic`.
 */
export function sourceRegexes(root: string, paths: string[] = TEXT_CODE): { regexes: SourceRegex[]; dynamic: string[] } {
  const regexes: SourceRegex[] = [];
  const dynamic: string[] = [];
  for (const file of paths.flatMap((p) => filesUnder(root, p))) {
    const sf = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const where = (node: ts.Node) => `${relative('.', file)}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node: ts.Node): void => {
      if (ts.isRegularExpressionLiteral(node)) regexes.push({ where: where(node), ...literalOf(node) });
      else if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && node.expression.getText() === 'RegExp') dynamic.push(where(node));
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { regexes, dynamic };
}
