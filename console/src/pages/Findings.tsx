import { useEffect, useState, type FormEvent } from 'react';
import { errorText } from '../api/errors.ts';
import { useUnitPick } from '../components/UnitPicker.tsx';
import { Badge, DataTable, FormPanel, LoadedView, MessageAlert, PageHeader, QueryPager, SelectField, type Message } from '../components/ui.tsx';
import { formatDateTime, humanize, plural } from '../lib/format.ts';
import { atLeast, useOrganization } from '../lib/organization.ts';
import { useLoad } from '../lib/use-load.ts';
import { FINDING_STATUSES, scanTypeLabel, SEVERITIES } from '../api/vocabulary.ts';
import { DetectedBy } from '../components/DetectedBy.tsx';
import { listFindings, oneOf, SCAN_TYPES, updateFinding, type FindingStatus } from '../lib/units.ts';
import { Link, navigate, skipOf, useLocation, withQuery } from '../router.tsx';

const LIMIT = 50;
const SORTS = ['newest', 'severity'] as const;
const SORT_LABEL: Record<(typeof SORTS)[number], string> = { newest: 'Newest first', severity: 'Severity, critical first' };

export function FindingsPage() {
  const org = useOrganization();
  const { pathname, search } = useLocation();
  const { picked, picker } = useUnitPick();
  const severity = oneOf(SEVERITIES, search.get('severity')) ?? '';
  const status = oneOf(FINDING_STATUSES, search.get('status')) ?? '';
  const scanType = oneOf(SCAN_TYPES.repositories, search.get('scan_type')) ?? '';
  const batch = search.get('batch') ?? '';
  const sort = search.get('sort') === 'severity' ? 'severity' : 'newest';
  const skip = skipOf(search);
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
  const [bulkMessage, setBulkMessage] = useState<Message | null>(null);
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
        <SelectField id="filter-severity" label="Severity" anyOption value={severity} options={SEVERITIES} onChange={(value) => filter('severity', value)} />
        <SelectField id="filter-status" label="Status" anyOption value={status} options={FINDING_STATUSES} onChange={(value) => filter('status', value)} />
        <SelectField
          id="filter-scan-type"
          label="Scan type"
          anyOption
          value={scanType}
          options={SCAN_TYPES.repositories}
          optionLabel={scanTypeLabel}
          onChange={(value) => filter('scan_type', value)}
        />
        <SelectField
          id="filter-sort"
          label="Sort by"
          value={sort}
          options={SORTS}
          optionLabel={(value) => SORT_LABEL[value]}
          onChange={(value) => filter('sort', value === 'severity' ? 'severity' : '')}
        />
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
      <MessageAlert message={bulkMessage} />

      <LoadedView load={findings} ready={!!picked} isEmpty={(page) => page.items.length === 0} empty="No findings match these filters.">
        {(page) =>
          picked && (
            <>
              <DataTable
                caption={<>Findings of {picked.name}</>}
                columns={[
                  canTriage && {
                    label: (
                      <input
                        type="checkbox"
                        aria-label="Select every finding on this page"
                        checked={allSelected}
                        onChange={(e) => setSelected(e.target.checked ? new Set(items.map((f) => f.id)) : new Set())}
                      />
                    ),
                  },
                  'Severity',
                  'Finding',
                  'Location',
                  'Detected by',
                  'Status',
                  'Last seen',
                ]}
              >
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
                      <td>
                        <DetectedBy finding={finding} />
                      </td>
                      <td>
                        <Badge value={finding.status} />
                      </td>
                      <td>{formatDateTime(finding.last_detected_at)}</td>
                    </tr>
                  );
                })}
              </DataTable>
              <QueryPager total={page.total} limit={LIMIT} noun="Findings" />
            </>
          )
        }
      </LoadedView>
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
    <FormPanel
      titleId="bulk-triage"
      title={<>Triage {plural(count, 'selected finding')}</>}
      layout="row"
      onSubmit={submit}
      submitLabel={busy ? 'Updating…' : `Apply to ${plural(count, 'finding')}`}
      disabled={busy}
    >
      <SelectField id="bulk-status" label="New status" value={status} options={FINDING_STATUSES} onChange={setStatus} />
      <div className="field" style={{ flex: '1 1 20rem' }}>
        <label htmlFor="bulk-comment">Comment (optional)</label>
        <input id="bulk-comment" value={comment} maxLength={2000} onChange={(e) => setComment(e.target.value)} placeholder="Why the status changes; kept in the event feed" />
      </div>
    </FormPanel>
  );
}
