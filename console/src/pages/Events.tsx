import { useEffect, useState, type FormEvent } from 'react';
import { describeEvent } from '../components/EventList.tsx';
import { Badge, DataTable, LoadedView, PageHeader, QueryPager, SelectField } from '../components/ui.tsx';
import { formatDateTime } from '../lib/format.ts';
import { useOrganization } from '../lib/organization.ts';
import { useLoad } from '../lib/use-load.ts';
import { FINDING_EVENT_TYPES, scanTypeLabel, SEVERITIES } from '../api/vocabulary.ts';
import { listEvents, listUnits, oneOf, SCAN_TYPES, type EventQuery } from '../lib/units.ts';
import { Link, navigate, skipOf, useLocation, withQuery } from '../router.tsx';

const LIMIT = 100;

/** `2026-05-01T10:00` (local, from a datetime-local field) as an ISO time, or undefined. */
const isoOf = (local: string) => (local ? new Date(local).toISOString() : undefined);

export function EventsPage() {
  const org = useOrganization();
  const { pathname, search } = useLocation();
  const get = (name: string) => search.get(name) ?? '';
  const skip = skipOf(search);
  const eventType = oneOf(FINDING_EVENT_TYPES, get('event_type'));
  const severity = oneOf(SEVERITIES, get('severity'));
  const scanType = oneOf(SCAN_TYPES.repositories, get('scan_type'));
  const query: EventQuery = {
    limit: LIMIT,
    skip,
    ...(get('repository_id') ? { repository_id: get('repository_id') } : {}),
    ...(get('finding_id') ? { finding_id: get('finding_id') } : {}),
    ...(eventType ? { event_type: eventType } : {}),
    ...(severity ? { severity } : {}),
    ...(scanType ? { scan_type: scanType } : {}),
    ...(get('start') ? { start: isoOf(get('start')) } : {}),
    ...(get('end') ? { end: isoOf(get('end')) } : {}),
  };
  const events = useLoad(`events:${org.id}:${JSON.stringify(query)}`, () => listEvents(query));
  const units = useLoad(`${org.id}:pick:repositories`, () => listUnits('repositories', { include_archived: true, limit: 200, skip: 0 }));
  const repositories = units.data?.items ?? [];
  const names = new Map(repositories.map((unit) => [unit.id, unit.name]));
  const [findingId, setFindingId] = useState(get('finding_id'));
  const findingParam = get('finding_id');
  useEffect(() => setFindingId(findingParam), [findingParam]);
  const set = (name: string, value: string) => navigate(withQuery(pathname, search, { [name]: value, skip: null }));

  const select = (id: string, label: string, name: string, options: readonly string[], optionLabel?: (value: string) => string) => (
    <SelectField id={id} label={label} anyOption value={get(name)} options={options} optionLabel={optionLabel} onChange={(value) => set(name, value)} />
  );

  return (
    <>
      <PageHeader title="Events">
        <button type="button" className="button secondary" onClick={events.reload}>
          Refresh
        </button>
      </PageHeader>
      <p className="muted">Every finding's lifecycle across {org.name}, newest first.</p>
      <form
        className="filters"
        role="search"
        aria-label="Filter events"
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          set('finding_id', findingId.trim());
        }}
      >
        <SelectField
          id="events-unit"
          label="Repository"
          anyOption
          value={get('repository_id')}
          options={repositories.map((unit) => unit.id)}
          optionLabel={(id) => names.get(id)}
          onChange={(value) => set('repository_id', value)}
        />
        {select('events-type', 'Event type', 'event_type', FINDING_EVENT_TYPES)}
        {select('events-severity', 'Severity', 'severity', SEVERITIES)}
        {select('events-scan-type', 'Scan type', 'scan_type', SCAN_TYPES.repositories, scanTypeLabel)}
        <div className="field">
          <label htmlFor="events-start">From</label>
          <input id="events-start" type="datetime-local" value={get('start')} onChange={(e) => set('start', e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="events-end">Until</label>
          <input id="events-end" type="datetime-local" value={get('end')} onChange={(e) => set('end', e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="events-finding">Finding id</label>
          <input id="events-finding" value={findingId} onChange={(e) => setFindingId(e.target.value)} onBlur={() => findingId.trim() !== get('finding_id') && set('finding_id', findingId.trim())} />
        </div>
        <button type="submit" className="button secondary">
          Apply filters
        </button>
      </form>
      <LoadedView load={events} isEmpty={(page) => page.items.length === 0} empty="No events match these filters.">
        {(page) => (
          <>
            <DataTable caption="Finding events" columns={['When', 'Event', 'Finding', 'Severity', 'Repository', 'Comment']}>
              {page.items.map((event) => (
                <tr key={event.id}>
                  <td>{formatDateTime(event.event_timestamp)}</td>
                  <td>{describeEvent(event)}</td>
                  <td>
                    <Link to={`/orgs/${org.id}/repositories/${event.repository_id}/findings/${event.finding_id}`}>{event.check_id ?? event.finding_id.slice(0, 8)}</Link>
                    {event.file_path ? <div className="muted small-text mono">{event.file_path}</div> : null}
                  </td>
                  <td>{event.severity ? <Badge value={event.severity} /> : '—'}</td>
                  <td>{names.get(event.repository_id) ?? event.repository_id.slice(0, 8)}</td>
                  <td className="truncate">{event.comment ?? ''}</td>
                </tr>
              ))}
            </DataTable>
            <QueryPager total={page.total} limit={LIMIT} noun="Events" />
          </>
        )}
      </LoadedView>
    </>
  );
}
