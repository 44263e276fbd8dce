/**
 * Every TypeScript snippet of the README and of the guides in docs/ compiles (#27, #30), each as a
 * module of its own, against the sources (the package test compiles them against the packed
 * package too).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, test } from 'vitest';
import { GIVEN, snippetModules } from './snippets.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIR = join(ROOT, '.tmp/readme-snippets');

test('every ts block of the README and the guides compiles against the sources', () => {
  const modules = snippetModules();
  expect(modules.length).toBeGreaterThan(8);
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const files = modules.map(({ name, source }) => {
    const file = join(DIR, name);
    writeFileSync(file, source);
    return file;
  });
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  )!;
  const program = ts.createProgram(files, { ...config.options, noEmit: true });
  const problems = files.flatMap((file) =>
    ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => {
      const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
      return `${file.slice(DIR.length + 1)}${where ? `:${where.line + 1}` : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    }),
  );
  // A name of the reader's that the text does not give is left undeclared, and fails to compile;
  // unless a global answers for it (the DOM's `event`, `name`, `status`): that is refused here.
  const checker = program.getTypeChecker();
  const givens = new Set([...Object.keys(GIVEN), 'app']);
  const globals = files.flatMap((file) => {
    const found: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node) && givens.has(node.text)) {
        const declarations = checker.getSymbolAtLocation(node)?.declarations ?? [];
        if (declarations.some((d) => program.isSourceFileDefaultLibrary(d.getSourceFile()))) {
          found.push(`${file.slice(DIR.length + 1)}: ${node.text} is the runtime's global, not the reader's: name it in the text`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(program.getSourceFile(file)!);
    return found;
  });
  expect([...problems, ...globals]).toEqual([]);
}, 120_000);
