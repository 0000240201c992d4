import { ConfigError, type Reader } from '../config.js';

/**
 * Which kinds of work done after the answer this instance takes on, one
 * setting per service, `<PREFIX>_WORKERS`: `all` (the default), `none`, or a
 * comma list of the service's names for them. Instances on one database share
 * the work whatever each takes on; one that takes none still queues it (the
 * rows are written with the change that causes them) for the others.
 * `legacy` names older on/off settings still honoured (`false` leaves a kind out).
 */
export function readWorkers<Name extends string>(
  read: Reader,
  prefix: string,
  names: readonly Name[],
  legacy: Partial<Record<Name, string>> = {},
): ReadonlySet<Name> {
  const setting = `${prefix}_WORKERS`;
  const raw = (read(setting) ?? 'all').trim().toLowerCase();
  let chosen: Name[];
  if (raw === 'all') chosen = [...names];
  else if (raw === 'none') chosen = [];
  else {
    const listed = raw.split(',').map((part) => part.trim());
    const unknown = listed.filter((part) => !names.includes(part as Name));
    if (unknown.length > 0 || listed.length === 0) {
      throw new ConfigError(
        setting,
        raw,
        `it takes all, none, or a comma list of ${names.join(', ')}`,
      );
    }
    chosen = listed as Name[];
  }
  for (const [name, legacySetting] of Object.entries(legacy) as [Name, string][]) {
    const value = read(legacySetting)?.trim().toLowerCase();
    if (value === undefined) continue;
    if (value !== 'true' && value !== 'false')
      throw new ConfigError(legacySetting, value, 'it accepts one of true, false');
    if (value === 'false') chosen = chosen.filter((kept) => kept !== name);
  }
  return new Set(chosen);
}
