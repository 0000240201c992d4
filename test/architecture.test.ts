import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The lines docs/architecture.md draws, read from the source's imports:
 * platform/ knows no service, the two services never import each other, and
 * no module is part of an import circle through the services' contexts (a
 * module takes what it uses, not the bag that is built from it).
 */
const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

interface Module {
  path: string;
  /** Modules this one imports, as paths under src/; `typeOnly` when only types are. */
  imports: { path: string; typeOnly: boolean }[];
}

function modules(): Map<string, Module> {
  const found = new Map<string, Module>();
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const full = join(directory, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) {
        const path = relative(SRC, full);
        const text = readFileSync(full, 'utf8');
        const imports = [...text.matchAll(/^import (type )?[^;]*?from '(\.[^']+)';/gms)].map(
          (match) => ({
            path: normalize(join(dirname(path), match[2] ?? '')).replace(/\.js$/, '.ts'),
            typeOnly: match[1] !== undefined,
          }),
        );
        found.set(path, { path, imports });
      }
    }
  };
  walk(SRC);
  return found;
}

/** The circles of the import graph (strongly connected components of more than one module). */
function circles(graph: Map<string, Module>, follow: (typeOnly: boolean) => boolean): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (path: string) => {
    index.set(path, next);
    low.set(path, next);
    next += 1;
    stack.push(path);
    onStack.add(path);
    for (const target of graph.get(path)?.imports ?? []) {
      if (!graph.has(target.path) || !follow(target.typeOnly)) continue;
      if (!index.has(target.path)) {
        visit(target.path);
        low.set(path, Math.min(low.get(path) ?? 0, low.get(target.path) ?? 0));
      } else if (onStack.has(target.path)) {
        low.set(path, Math.min(low.get(path) ?? 0, index.get(target.path) ?? 0));
      }
    }
    if (low.get(path) === index.get(path)) {
      const circle: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        circle.push(member);
      } while (member !== path);
      if (circle.length > 1) found.push(circle.sort());
    }
  };
  for (const path of graph.keys()) if (!index.has(path)) visit(path);
  return found;
}

describe('the architecture', () => {
  const graph = modules();
  const importsOf = (prefix: string) =>
    [...graph.values()]
      .filter((module) => module.path.startsWith(prefix))
      .flatMap((module) => module.imports.map((target) => `${module.path} → ${target.path}`));

  it('reads the source it checks', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get('refdata/context.ts')?.imports.length).toBeGreaterThan(10);
  });

  it('keeps platform/ free of the services, and the services apart', () => {
    expect(importsOf('platform/').filter((line) => /→ (codehost|refdata)\//.test(line))).toEqual(
      [],
    );
    expect(importsOf('codehost/').filter((line) => line.includes('→ refdata/'))).toEqual([]);
    expect(importsOf('refdata/').filter((line) => line.includes('→ codehost/'))).toEqual([]);
  });

  it('has no circle of imports that load code, and none of any kind through a context', () => {
    expect(circles(graph, (typeOnly) => !typeOnly)).toEqual([]);
    const throughContexts = circles(graph, () => true).filter(
      (circle) => circle.includes('refdata/context.ts') || circle.includes('codehost/context.ts'),
    );
    expect(throughContexts).toEqual([]);
  });
});
