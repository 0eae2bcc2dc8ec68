import { useEffect, useState, type FormEvent } from 'react';
import { errorText } from '../api/errors.ts';
import { useUnitPick } from '../components/UnitPicker.tsx';
import { Alert, Badge, EmptyState, Loading, PageHeader, Pager } from '../components/ui.tsx';
import { formatDateTime, humanize, plural } from '../lib/format.ts';
import { atLeast, useOrganization } from '../lib/organization.ts';
import { useLoad } from '../lib/use-load.ts';
import { FINDING_STATUSES, listFindings, SCAN_TYPES, SEVERITIES, updateFinding, type FindingStatus } from '../lib/units.ts';
import { Link, navigate, useLocation, withQuery } from '../router.tsx';

const LIMIT = 50;

export function FindingsPage() {
  const org = useOrganization();
  const { pathname, search } = useLocation();
  const { picked, picker } = useUnitPick();
  const severity = search.get('severity') ?? '';
  const status = search.get('status') ?? '';
  const scanType = search.get('scan_type') ?? '';
  const batch = search.get('batch') ?? '';
  const sort = search.get('sort') === 'severity' ? 'severity' : 'newest';
  const skip = Number(search.get('skip') ?? 0) || 0;
  const query = {
    limit: LIMIT,
    skip,
    ...(severity ? { severity } : {}),
    ...(status ? { status } : {}),
    ...(scanType ? { scan_type: scanType } : {}),
    ...(batch ? { scan_batch_id: batch } : {}),
    ...(sort === 'severity' ? { sort: 'severity' as const } : {}),
  };
  const findings = useLoad(picked ? `${picked.family}:${picked.id}:${JSON.stringify(query)}` : null, () => listFindings(picked!.family, picked!.id, query));
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [batchInput, setBatchInput] = useState(batch);
  useEffect(() => setBatchInput(batch), [batch]);
  const [bulkMessage, setBulkMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const filter = (name: string, value: string) => {
    setSelected(new Set());
    navigate(withQuery(pathname, search, { [name]: value, skip: null }));
  };
  const items = findings.data?.items ?? [];
  const allSelected = items.length > 0 && items.every((f) => selected.has(f.id));
  const canTriage = atLeast(org.role, 'member');

  return (
    <>
      <PageHeader title="Findings" />
      <form
        className="filters"
        role="search"
        aria-label="Filter findings"
        onSubmit={(event) => {
          event.preventDefault();
          filter('batch', batchInput.trim());
        }}
      >
        {picker}
        <div className="field">
          <label htmlFor="filter-severity">Severity</label>
          <select id="filter-severity" value={severity} onChange={(e) => filter('severity', e.target.value)}>
            <option value="">Any</option>
            {SEVERITIES.map((value) => (
              <option key={value} value={value}>
                {humanize(value)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-status">Status</label>
          <select id="filter-status" value={status} onChange={(e) => filter('status', e.target.value)}>
            <option value="">Any</option>
            {FINDING_STATUSES.map((value) => (
              <option key={value} value={value}>
                {humanize(value)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-scan-type">Scan type</label>
          <select id="filter-scan-type" value={scanType} onChange={(e) => filter('scan_type', e.target.value)}>
            <option value="">Any</option>
            {SCAN_TYPES.repositories.map((value) => (
              <option key={value} value={value}>
                {humanize(value)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-sort">Sort by</label>
          <select id="filter-sort" value={sort} onChange={(e) => filter('sort', e.target.value === 'severity' ? 'severity' : '')}>
            <option value="newest">Newest first</option>
            <option value="severity">Severity, critical first</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-batch">Scan batch id</label>
          <input id="filter-batch" value={batchInput} onChange={(e) => setBatchInput(e.target.value)} placeholder="any batch" onBlur={() => batchInput.trim() !== batch && filter('batch', batchInput.trim())} />
        </div>
        <button type="submit" className="button secondary">
          Apply filters
        </button>
      </form>

      {canTriage && selected.size > 0 && picked ? (
        <BulkTriage
          count={selected.size}
          onApply={async (next, comment) => {
            const ids = [...selected];
            const failures: string[] = [];
            for (const id of ids) {
              const { data, error, response } = await updateFinding(picked.family, picked.id, id, { status: next, comment: comment || null });
              if (!data) failures.push(errorText(error, response));
            }
            setSelected(new Set());
            findings.reload();
            setBulkMessage(
              failures.length
                ? { kind: 'error', text: `${ids.length - failures.length} of ${ids.length} updated. ${failures[0]}` }
                : { kind: 'success', text: `${plural(ids.length, 'finding')} marked ${humanize(next).toLowerCase()}.` },
            );
          }}
        />
      ) : null}
      {bulkMessage ? <Alert kind={bulkMessage.kind}>{bulkMessage.text}</Alert> : null}

      {!picked || (findings.loading && !findings.data) ? (
        <Loading />
      ) : findings.error || !findings.data ? (
        <Alert>{findings.error}</Alert>
      ) : items.length === 0 ? (
        <EmptyState>No findings match these filters.</EmptyState>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">Findings of {picked.name}</caption>
              <thead>
                <tr>
                  {canTriage ? (
                    <th scope="col">
                      <input
                        type="checkbox"
                        aria-label="Select every finding on this page"
                        checked={allSelected}
                        onChange={(e) => setSelected(e.target.checked ? new Set(items.map((f) => f.id)) : new Set())}
                      />
                    </th>
                  ) : null}
                  <th scope="col">Severity</th>
                  <th scope="col">Finding</th>
                  <th scope="col">Location</th>
                  <th scope="col">Scan type</th>
                  <th scope="col">Status</th>
                  <th scope="col">Last seen</th>
                </tr>
              </thead>
              <tbody>
                {items.map((finding) => {
                  const title = ('title' in finding && finding.title) || finding.check_id;
                  return (
                    <tr key={finding.id}>
                      {canTriage ? (
                        <td>
                          <input
                            type="checkbox"
                            aria-label={`Select ${title} in ${finding.file_path}`}
                            checked={selected.has(finding.id)}
                            onChange={(e) => {
                              const next = new Set(selected);
                              if (e.target.checked) next.add(finding.id);
                              else next.delete(finding.id);
                              setSelected(next);
                            }}
                          />
                        </td>
                      ) : null}
                      <td>
                        <Badge value={finding.severity} />
                      </td>
                      <td>
                        <Link to={`/orgs/${org.id}/${picked.family}/${picked.id}/findings/${finding.id}`}>{title}</Link>
                        <div className="muted small-text truncate">{finding.message}</div>
                      </td>
                      <td className="mono small-text">
                        {finding.file_path}
                        {finding.start_line ? `:${finding.start_line}` : ''}
                      </td>
                      <td>{humanize(finding.scan_type)}</td>
                      <td>
                        <Badge value={finding.status} />
                      </td>
                      <td>{formatDateTime(finding.last_detected_at)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <Pager total={findings.data.total} limit={LIMIT} skip={skip} noun="Findings" onSkip={(next) => navigate(withQuery(pathname, search, { skip: next || null }))} />
        </>
      )}
    </>
  );
}

function BulkTriage({ count, onApply }: { count: number; onApply(status: FindingStatus, comment: string): Promise<void> }) {
  const [status, setStatus] = useState<FindingStatus>('false_positive');
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    await onApply(status, comment.trim());
  };
  return (
    <section className="panel" aria-labelledby="bulk-triage">
      <h2 id="bulk-triage">Triage {plural(count, 'selected finding')}</h2>
      <form className="row" onSubmit={(event) => void submit(event)}>
        <div className="field">
          <label htmlFor="bulk-status">New status</label>
          <select id="bulk-status" value={status} onChange={(e) => setStatus(e.target.value as FindingStatus)}>
            {FINDING_STATUSES.map((value) => (
              <option key={value} value={value}>
                {humanize(value)}
              </option>
            ))}
          </select>
        </div>
        <div className="field" style={{ flex: '1 1 20rem' }}>
          <label htmlFor="bulk-comment">Comment (optional)</label>
          <input id="bulk-comment" value={comment} maxLength={2000} onChange={(e) => setComment(e.target.value)} placeholder="Why the status changes; kept in the event feed" />
        </div>
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Updating…' : `Apply to ${plural(count, 'finding')}`}
        </button>
      </form>
    </section>
  );
}
