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
  const run = compiledWith(build.length, (standIns) => build(...standIns));
  return (...values) => run(values);
}

/**
 * `reusableQuery` for a query of many values (a whole row inserted), each
 * named: `build` gets a stand-in under each of `names`, and each call gives
 * the values under the same names.
 */
export function reusableNamedQuery<Name extends string, Row>(
  names: readonly Name[],
  build: (standIns: Readonly<Record<Name, string>>) => Compilable<Row>,
): (values: Readonly<Record<Name, unknown>>) => CompiledQuery<Row> {
  const run = compiledWith(names.length, (standIns) =>
    build(
      Object.fromEntries(names.map((name, index) => [name, standIns[index]])) as Record<
        Name,
        string
      >,
    ),
  );
  return (values) => run(names.map((name) => values[name]));
}

function compiledWith<Row>(
  count: number,
  build: (standIns: string[]) => Compilable<Row>,
): (values: readonly unknown[]) => CompiledQuery<Row> {
  // NUL cannot occur in a value that reaches a query: text columns refuse it.
  const standIns = Array.from({ length: count }, (_, index) => `\u0000${index}\u0000`);
  let compiled: CompiledQuery<Row> | undefined;
  return (values) => {
    if (values.length !== standIns.length)
      throw new Error(`expected ${standIns.length} values, got ${values.length}`);
    compiled ??= build(standIns).compile();
    const parameters = compiled.parameters.map((parameter) => {
      const index = typeof parameter === 'string' ? standIns.indexOf(parameter) : -1;
      return index === -1 ? parameter : values[index];
    });
    return { ...compiled, parameters };
  };
}
