import { useUnitPick } from '../components/UnitPicker.tsx';
import { Badge, DataTable, LoadedView, PageHeader, QueryPager } from '../components/ui.tsx';
import { formatDateTime } from '../lib/format.ts';
import { ExternalLink } from '../components/ExternalLink.tsx';
import { useOrganization } from '../lib/organization.ts';
import { useLoad } from '../lib/use-load.ts';
import { ACTIVE_FIX, listFixes } from '../lib/units.ts';
import { Link, skipOf, useLocation } from '../router.tsx';

const LIMIT = 50;

export function FixesPage() {
  const org = useOrganization();
  const { search } = useLocation();
  const { picked, picker } = useUnitPick();
  const skip = skipOf(search);
  const fixes = useLoad(picked ? `fixes:${picked.family}:${picked.id}:${skip}` : null, () => listFixes(picked!.family, picked!.id, { limit: LIMIT, skip }), {
    pollMs: 4000,
    shouldPoll: (page) => page.items.some((fix) => ACTIVE_FIX.includes(fix.status)),
  });
  return (
    <>
      <PageHeader title="Fixes" />
      <div className="filters">{picker}</div>
      <LoadedView load={fixes} ready={!!picked} isEmpty={(page) => page.items.length === 0} empty="No fixes yet. Start one from a finding's page.">
        {(page) =>
          picked && (
            <>
              <DataTable caption={<>Fixes of {picked.name}</>} columns={['Fix', 'Status', { label: 'Findings', className: 'num' }, 'Pull requests', 'Started', 'Finished']}>
                {page.items.map((fix) => (
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
                              <ExternalLink href={pr.pr_url}>
                                {pr.repo_full_name}#{pr.pr_number}
                              </ExternalLink>
                            </div>
                          ))
                        : '—'}
                    </td>
                    <td>{formatDateTime(fix.started_at ?? fix.created_at)}</td>
                    <td>{formatDateTime(fix.completed_at)}</td>
                  </tr>
                ))}
              </DataTable>
              <QueryPager total={page.total} limit={LIMIT} noun="Fixes" />
            </>
          )
        }
      </LoadedView>
    </>
  );
}
