import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

interface LockedPackage {
  version?: string;
  engines?: { node?: string } | string[];
  dev?: boolean;
  optional?: boolean;
}

describe('installing on the Node.js the README names', () => {
  const readme = read('README.md');
  const named = /Node\.js (\d+\.\d+) or newer/.exec(readme)?.[1];
  const oldest = `${named}.0`;

  it('names the same oldest Node.js in the README and in package.json', () => {
    expect(named).toBeDefined();
    const engines = JSON.parse(read('package.json')).engines.node as string;
    expect(semver.minVersion(engines)?.version).toBe(oldest);
  });

  it('locks no package whose engines refuse that Node.js (npm would warn EBADENGINE)', () => {
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, LockedPackage>;
    };
    const refusing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (path === '' || !range) continue;
      if (!semver.satisfies(oldest, range, { includePrerelease: true })) {
        refusing.push(
          `${path.replace(/^.*node_modules\//, '')}@${entry.version} wants node ${range}`,
        );
      }
    }
    expect(refusing).toEqual([]);
  });

  it('has npm refuse such a package instead of warning (engine-strict)', () => {
    expect(read('.npmrc')).toMatch(/^engine-strict=true$/m);
  });
});
