import { useEffect } from 'react';
import { useOrganization } from '../lib/organization.ts';
import { useLoad } from '../lib/use-load.ts';
import { listUnits, type Family } from '../lib/units.ts';
import { navigate, useLocation, withQuery } from '../router.tsx';
import { Alert } from './ui.tsx';

export interface PickedUnit {
  family: Family;
  id: string;
  name: string;
}

/**
 * Findings and fixes live under a repository or an application. The `unit` query value (`family:id`)
 * says which; without one the first repository is taken. Returns the pick once known.
 */
export function useUnitPick(): { picked: PickedUnit | null; picker: React.ReactNode } {
  const org = useOrganization();
  const { pathname, search } = useLocation();
  const repositories = useLoad(`${org.id}:pick:repositories`, () => listUnits('repositories', { include_archived: true, limit: 200, skip: 0 }));
  const applications = useLoad(`${org.id}:pick:applications`, () => listUnits('applications', { include_archived: true, limit: 200, skip: 0 }));
  const raw = search.get('unit') ?? '';
  const [rawFamily, rawId] = raw.includes(':') ? (raw.split(':', 2) as [string, string]) : ['', ''];
  const fromList = (family: Family) => (family === 'repositories' ? repositories.data : applications.data)?.items ?? [];
  const family: Family | null = rawFamily === 'repositories' || rawFamily === 'applications' ? rawFamily : null;
  const found = family ? fromList(family).find((unit) => unit.id === rawId) : undefined;
  const first = repositories.data?.items[0];

  useEffect(() => {
    if (!raw && first) navigate(withQuery(pathname, search, { unit: `repositories:${first.id}` }), { replace: true });
  }, [raw, first, pathname, search]);

  const picked: PickedUnit | null = family && rawId ? { family, id: rawId, name: found?.name ?? rawId } : null;
  const error = repositories.error ?? applications.error;
  const picker = (
    <div className="field">
      <label htmlFor="unit-picker">Repository or application</label>
      <select
        id="unit-picker"
        value={raw}
        onChange={(e) => navigate(withQuery(pathname, new URLSearchParams(), { unit: e.target.value }))}
        disabled={!repositories.data}
      >
        {!raw ? <option value="">Loading…</option> : null}
        {family && rawId && !found ? <option value={raw}>{rawId}</option> : null}
        <optgroup label="Repositories">
          {fromList('repositories').map((unit) => (
            <option key={unit.id} value={`repositories:${unit.id}`}>
              {unit.name}
              {unit.archived ? ' (archived)' : ''}
            </option>
          ))}
        </optgroup>
        <optgroup label="Applications">
          {fromList('applications').map((unit) => (
            <option key={unit.id} value={`applications:${unit.id}`}>
              {unit.name}
              {unit.archived ? ' (archived)' : ''}
            </option>
          ))}
        </optgroup>
      </select>
      {error ? <Alert>{error}</Alert> : null}
    </div>
  );
  return { picked, picker };
}
