import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';

/** Where the types generated from running services go (ignored by git, lint and typecheck). */
export const GENERATED_DIRECTORY = join(dirname(fileURLToPath(import.meta.url)), 'generated');

/**
 * Fetches a running service's `/openapi.json` over HTTP, as a team generating
 * a client would, and writes `openapi-typescript`'s types for it to
 * `generated/<name>.ts`. Returns the file's path.
 */
export async function generateTypes(serviceUrl: string, name: string): Promise<string> {
  const response = await fetch(`${serviceUrl}/openapi.json`);
  if (!response.ok) throw new Error(`${serviceUrl}/openapi.json answered ${response.status}`);
  const document = (await response.json()) as OpenAPI3;
  const file = join(GENERATED_DIRECTORY, `${name}.ts`);
  mkdirSync(GENERATED_DIRECTORY, { recursive: true });
  writeFileSync(file, astToString(await openapiTS(document)));
  return file;
}

/**
 * Type-checks `files` (and what they import) with the project's compiler
 * settings; returns each error as `file:line: message`, none when they compile.
 */
export function typeErrors(files: string[]): string[] {
  const root = join(GENERATED_DIRECTORY, '..', '..', '..');
  const configFile = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
  const program = ts.createProgram(files, options);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (!diagnostic.file || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${diagnostic.file.fileName}:${line + 1}: ${message}`;
  });
}
