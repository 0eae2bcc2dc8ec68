import { useUnitPick } from '../components/UnitPicker.tsx';
import { Alert, Badge, EmptyState, Loading, PageHeader, Pager } from '../components/ui.tsx';
import { formatDateTime } from '../lib/format.ts';
import { useOrganization } from '../lib/organization.ts';
import { useLoad } from '../lib/use-load.ts';
import { ACTIVE_FIX, listFixes } from '../lib/units.ts';
import { Link, navigate, useLocation, withQuery } from '../router.tsx';

const LIMIT = 50;

export function FixesPage() {
  const org = useOrganization();
  const { pathname, search } = useLocation();
  const { picked, picker } = useUnitPick();
  const skip = Number(search.get('skip') ?? 0) || 0;
  const fixes = useLoad(picked ? `fixes:${picked.family}:${picked.id}:${skip}` : null, () => listFixes(picked!.family, picked!.id, { limit: LIMIT, skip }), {
    pollMs: 4000,
    shouldPoll: (page) => page.items.some((fix) => ACTIVE_FIX.includes(fix.status)),
  });
  return (
    <>
      <PageHeader title="Fixes" />
      <div className="filters">{picker}</div>
      {!picked || (fixes.loading && !fixes.data) ? (
        <Loading />
      ) : fixes.error || !fixes.data ? (
        <Alert>{fixes.error}</Alert>
      ) : fixes.data.items.length === 0 ? (
        <EmptyState>No fixes yet. Start one from a finding's page.</EmptyState>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">Fixes of {picked.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Fix</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="num">
                    Findings
                  </th>
                  <th scope="col">Pull requests</th>
                  <th scope="col">Started</th>
                  <th scope="col">Finished</th>
                </tr>
              </thead>
              <tbody>
                {fixes.data.items.map((fix) => (
                  <tr key={fix.id}>
                    <td>
                      <Link to={`/orgs/${org.id}/${picked.family}/${picked.id}/fixes/${fix.id}`}>{fix.title}</Link>
                      {fix.source_repo ? <div className="muted small-text mono">{fix.source_repo}</div> : null}
                    </td>
                    <td>
                      <Badge value={fix.status} />
                    </td>
                    <td className="num">{fix.finding_ids.length}</td>
                    <td>
                      {(fix.pull_requests ?? []).length
                        ? (fix.pull_requests ?? []).map((pr) => (
                            <div key={pr.pr_url}>
                              <a href={pr.pr_url} target="_blank" rel="noreferrer noopener">
                                {pr.repo_full_name}#{pr.pr_number}
                              </a>
                            </div>
                          ))
                        : '—'}
                    </td>
                    <td>{formatDateTime(fix.started_at ?? fix.created_at)}</td>
                    <td>{formatDateTime(fix.completed_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager total={fixes.data.total} limit={LIMIT} skip={skip} noun="Fixes" onSkip={(next) => navigate(withQuery(pathname, search, { skip: next || null }))} />
        </>
      )}
    </>
  );
}
