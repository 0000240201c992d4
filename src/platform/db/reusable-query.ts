import type { Compilable, CompiledQuery } from 'kysely';

/**
 * A query built and compiled once and then run with new values. Kysely builds
 * and compiles every query anew; on a hot read of one row (dereferencing a
 * resource) that took longer than the database's own work. `build` is called
 * once, with stand-ins for the values, and the stand-ins are swapped for the
 * values of each call, so the SQL text stays the same and the SQLite
 * connection's statement cache finds it.
 */
export function reusableQuery<Row>(
  build: (...standIns: string[]) => Compilable<Row>,
): (...values: readonly unknown[]) => CompiledQuery<Row> {
  // NUL cannot occur in a value that reaches a query: text columns refuse it.
  const standIns = Array.from({ length: build.length }, (_, index) => `\u0000${index}\u0000`);
  let compiled: CompiledQuery<Row> | undefined;
  return (...values) => {
    if (values.length !== standIns.length)
      throw new Error(`expected ${standIns.length} values, got ${values.length}`);
    compiled ??= build(...standIns).compile();
    const parameters = compiled.parameters.map((parameter) => {
      const index = typeof parameter === 'string' ? standIns.indexOf(parameter) : -1;
      return index === -1 ? parameter : values[index];
    });
    return { ...compiled, parameters };
  };
}
