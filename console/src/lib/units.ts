// The two route families of the API (repositories, applications) behind one set of calls. Each call picks
// its family's typed route, so request and answer shapes stay those of the generated schema.
import { api, type Paths } from '../api/client.ts';
import { choicesOf } from '../api/published.ts';
import { APPLICATION_SCAN_TYPES, DEEP_AI_SCAN_TYPES, REPOSITORY_SCAN_TYPES, SCAN_BATCH_END_STATUSES, type FixStatus } from '../api/vocabulary.ts';

export type Family = 'repositories' | 'applications';

type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;
type Success<O> = O extends { responses: infer R } ? JsonOf<R extends { 200: infer X } ? X : R extends { 201: infer X } ? X : R extends { 202: infer X } ? X : never> : never;
type BodyOf<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

type R = '/api/v1/repositories';
type A = '/api/v1/applications';
export type UnitPage = Success<Paths[R]['get']> | Success<Paths[A]['get']>;
export type Unit = UnitPage['items'][number];
export type ScanBatchPage = Success<Paths[`${R}/{repository_id}/scans`]['get']> | Success<Paths[`${A}/{application_id}/scans`]['get']>;
export type ScanBatch = ScanBatchPage['items'][number];
export type ScanProgress = Success<Paths[`${R}/{repository_id}/scans/{scan_id}/progress`]['get']> | Success<Paths[`${A}/{application_id}/scans/{scan_id}/progress`]['get']>;
export type FindingPage = Success<Paths[`${R}/{repository_id}/findings`]['get']> | Success<Paths[`${A}/{application_id}/findings`]['get']>;
export type Finding = FindingPage['items'][number];
export type FindingQuery = QueryOf<Paths[`${R}/{repository_id}/findings`]['get']>;
export type FindingUpdate = BodyOf<Paths[`${R}/{repository_id}/findings/{finding_id}`]['patch']>;
export type FindingStatus = FindingUpdate['status'];
export type FixPage = Success<Paths[`${R}/{repository_id}/fixes`]['get']> | Success<Paths[`${A}/{application_id}/fixes`]['get']>;
export type Fix = FixPage['items'][number];
export type FixCreate = BodyOf<Paths[`${R}/{repository_id}/fixes`]['post']>;
export type FixDiff = Success<Paths[`${R}/{repository_id}/fixes/{fix_id}/diff`]['get']>;
export type FixProgress = Success<Paths[`${R}/{repository_id}/fixes/{fix_id}/progress`]['get']> | Success<Paths[`${A}/{application_id}/fixes/{fix_id}/progress`]['get']>;
export type PullRequestCreate = BodyOf<Paths[`${R}/{repository_id}/fixes/{fix_id}/pull-requests`]['post']>;
export type ScanType = BodyOf<Paths[`${R}/{repository_id}/scans`]['post']>['scan_type'];
type ApplicationScanType = BodyOf<Paths[`${A}/{application_id}/scans`]['post']>['scan_type'];
export type QuotaBalance = Success<Paths['/api/v1/quotas/balance']['get']>;
export type EventPage = Success<Paths['/api/v1/finding-events']['get']>;
export type FindingEvent = EventPage['items'][number];
export type EventQuery = QueryOf<Paths['/api/v1/finding-events']['get']>;

export const SCAN_TYPES: Record<Family, ScanType[]> = { repositories: REPOSITORY_SCAN_TYPES, applications: APPLICATION_SCAN_TYPES };
/** Which quota counter a scan of each type uses, as the server publishes it. */
export const SCAN_QUOTA = Object.fromEntries(
  [...new Set([...REPOSITORY_SCAN_TYPES, ...APPLICATION_SCAN_TYPES])].map((type) => [type, DEEP_AI_SCAN_TYPES.includes(type) ? 'deep_ai_scans' : 'sast_scans']),
) as Record<ScanType, 'sast_scans' | 'deep_ai_scans'>;
/** The code hosts, as the server lists them (src/code-hosts). */
const CODE_HOSTS = choicesOf('CodeHost');
export type Provider = (typeof CODE_HOSTS)[number]['value'];
export const PROVIDERS: Provider[] = CODE_HOSTS.map((host) => host.value);
export const PROVIDER_LABEL: Record<string, string> = Object.fromEntries(CODE_HOSTS.map((host) => [host.value, host.label]));
export const FINISHED_BATCH: readonly string[] = SCAN_BATCH_END_STATUSES;
/** A fix at work: the console follows it until it is done. */
export const ACTIVE_FIX: readonly string[] = ['pending', 'running'] satisfies FixStatus[];

/** `text` when it is one of `values` (a filter read from the address), else undefined: the API refuses any other value of an enum filter. */
export const oneOf = <T extends string>(values: readonly T[], text: string | null | undefined): T | undefined =>
  (values as readonly string[]).includes(text ?? '') ? (text as T) : undefined;

export const FAMILY_LABEL: Record<Family, { one: string; many: string; title: string }> = {
  repositories: { one: 'repository', many: 'repositories', title: 'Repositories' },
  applications: { one: 'application', many: 'applications', title: 'Applications' },
};

export const listUnits = async (family: Family, query: { include_archived: boolean; limit: number; skip: number }) =>
  family === 'repositories' ? api.GET('/api/v1/repositories', { params: { query } }) : api.GET('/api/v1/applications', { params: { query } });

export const getUnit = async (family: Family, id: string) =>
  family === 'repositories'
    ? api.GET('/api/v1/repositories/{repository_id}', { params: { path: { repository_id: id } } })
    : api.GET('/api/v1/applications/{application_id}', { params: { path: { application_id: id } } });

export const listScans = async (family: Family, id: string, query: { limit: number; skip: number }) =>
  family === 'repositories'
    ? api.GET('/api/v1/repositories/{repository_id}/scans', { params: { path: { repository_id: id }, query } })
    : api.GET('/api/v1/applications/{application_id}/scans', { params: { path: { application_id: id }, query } });

export const createScan = async (family: Family, id: string, scanType: ScanType) =>
  family === 'repositories'
    ? api.POST('/api/v1/repositories/{repository_id}/scans', { params: { path: { repository_id: id } }, body: { scan_type: scanType } })
    : api.POST('/api/v1/applications/{application_id}/scans', {
        params: { path: { application_id: id } },
        body: { scan_type: scanType as ApplicationScanType },
      });

export const scanProgress = async (family: Family, id: string, scanId: string) =>
  family === 'repositories'
    ? api.GET('/api/v1/repositories/{repository_id}/scans/{scan_id}/progress', { params: { path: { repository_id: id, scan_id: scanId } } })
    : api.GET('/api/v1/applications/{application_id}/scans/{scan_id}/progress', { params: { path: { application_id: id, scan_id: scanId } } });

export const listFindings = async (family: Family, id: string, query: FindingQuery) =>
  family === 'repositories'
    ? api.GET('/api/v1/repositories/{repository_id}/findings', { params: { path: { repository_id: id }, query } })
    : api.GET('/api/v1/applications/{application_id}/findings', {
        params: { path: { application_id: id }, query: { ...query, scan_type: oneOf(APPLICATION_SCAN_TYPES, query.scan_type) } },
      });

export const getFinding = async (family: Family, id: string, findingId: string) =>
  family === 'repositories'
    ? api.GET('/api/v1/repositories/{repository_id}/findings/{finding_id}', { params: { path: { repository_id: id, finding_id: findingId } } })
    : api.GET('/api/v1/applications/{application_id}/findings/{finding_id}', { params: { path: { application_id: id, finding_id: findingId } } });

export const updateFinding = async (family: Family, id: string, findingId: string, body: FindingUpdate) =>
  family === 'repositories'
    ? api.PATCH('/api/v1/repositories/{repository_id}/findings/{finding_id}', { params: { path: { repository_id: id, finding_id: findingId } }, body })
    : api.PATCH('/api/v1/applications/{application_id}/findings/{finding_id}', { params: { path: { application_id: id, finding_id: findingId } }, body });

export const listFixes = async (family: Family, id: string, query: { finding_id?: string; limit: number; skip: number }) =>
  family === 'repositories'
    ? api.GET('/api/v1/repositories/{repository_id}/fixes', { params: { path: { repository_id: id }, query } })
    : api.GET('/api/v1/applications/{application_id}/fixes', { params: { path: { application_id: id }, query } });

export const createFix = async (family: Family, id: string, body: FixCreate) =>
  family === 'repositories'
    ? api.POST('/api/v1/repositories/{repository_id}/fixes', { params: { path: { repository_id: id } }, body })
    : api.POST('/api/v1/applications/{application_id}/fixes', { params: { path: { application_id: id } }, body });

export const getFix = async (family: Family, id: string, fixId: string) =>
  family === 'repositories'
    ? api.GET('/api/v1/repositories/{repository_id}/fixes/{fix_id}', { params: { path: { repository_id: id, fix_id: fixId } } })
    : api.GET('/api/v1/applications/{application_id}/fixes/{fix_id}', { params: { path: { application_id: id, fix_id: fixId } } });

export const fixDiff = async (family: Family, id: string, fixId: string) =>
  family === 'repositories'
    ? api.GET('/api/v1/repositories/{repository_id}/fixes/{fix_id}/diff', { params: { path: { repository_id: id, fix_id: fixId } } })
    : api.GET('/api/v1/applications/{application_id}/fixes/{fix_id}/diff', { params: { path: { application_id: id, fix_id: fixId } } });

export const fixProgress = async (family: Family, id: string, fixId: string) =>
  family === 'repositories'
    ? api.GET('/api/v1/repositories/{repository_id}/fixes/{fix_id}/progress', { params: { path: { repository_id: id, fix_id: fixId } } })
    : api.GET('/api/v1/applications/{application_id}/fixes/{fix_id}/progress', { params: { path: { application_id: id, fix_id: fixId } } });

export const createPullRequests = async (family: Family, id: string, fixId: string, body: PullRequestCreate) =>
  family === 'repositories'
    ? api.POST('/api/v1/repositories/{repository_id}/fixes/{fix_id}/pull-requests', { params: { path: { repository_id: id, fix_id: fixId } }, body })
    : api.POST('/api/v1/applications/{application_id}/fixes/{fix_id}/pull-requests', { params: { path: { application_id: id, fix_id: fixId } }, body });

/** Refine and cancel exist in the repository family only. */
export const refineFix = async (id: string, fixId: string, instructions: string) =>
  api.POST('/api/v1/repositories/{repository_id}/fixes/{fix_id}/refine', { params: { path: { repository_id: id, fix_id: fixId } }, body: { instructions } });
export const cancelFix = async (id: string, fixId: string) =>
  api.POST('/api/v1/repositories/{repository_id}/fixes/{fix_id}/cancel', { params: { path: { repository_id: id, fix_id: fixId } } });

export const quotaBalance = async () => api.GET('/api/v1/quotas/balance');
export const listEvents = async (query: EventQuery) => api.GET('/api/v1/finding-events', { params: { query } });
