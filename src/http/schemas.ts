import { Type, type TSchema } from '@sinclair/typebox';
import { CODE_HOST_NAMES } from '../code-hosts/index.ts';
import { EVENT_TYPES } from '../core/finding-events.ts';
import { FINDING_STATUSES, TRIAGE_COMMENT_MAX_LENGTH } from '../core/findings.ts';
import { SEVERITIES } from '../core/severity.ts';
import { BATCH_STATUS } from '../core/states/batch-status.ts';
import { FIX_STATUSES } from '../core/states/fix-status.ts';
import type { Family } from './family.ts';

// Response and request schemas of the v1 wire contract. Field names, types, nullability and required
// lists follow the published contract; fast-json-stringify serializes with them, so nothing else leaks.

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = (title: string) => Type.String({ format: 'date-time', title });
const NullableDateTime = (title: string) => Type.Optional(Nullable(DateTime(title)));
const NullableString = (title: string) => Type.Optional(Nullable(Type.String({ title })));
const StringList = (title: string) => Type.Optional(Type.Array(Type.String(), { title }));
/** `a, b or c`: the values a field takes, for its description. */
const spoken = (values: readonly string[]) => `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;

export const ValidationError = Type.Object(
  {
    loc: Type.Array(Type.Union([Type.String(), Type.Integer()]), { title: 'Location' }),
    msg: Type.String({ title: 'Message' }),
    type: Type.String({ title: 'Error Type' }),
    input: Type.Optional(Type.Unknown({ title: 'Input' })),
    ctx: Type.Optional(Type.Object({}, { title: 'Context', additionalProperties: true })),
  },
  { title: 'ValidationError' },
);

export const HTTPValidationError = Type.Object(
  { detail: Type.Optional(Type.Array(ValidationError, { title: 'Detail' })) },
  { title: 'HTTPValidationError' },
);

/** The application family's contract lists only loc, msg and type for each validation error. */
const { input: _input, ctx: _ctx, ...bareErrorFields } = ValidationError.properties;
export const BareHTTPValidationError = Type.Object(
  { detail: Type.Optional(Type.Array(Type.Object(bareErrorFields, { title: 'ValidationError' }), { title: 'Detail' })) },
  { title: 'HTTPValidationError' },
);

export const ErrorResponse = Type.Object(
  {
    detail: Type.Object(
      {
        detail: Type.String({ description: 'A sentence for humans' }),
        error_code: Type.String({ description: 'NOT_FOUND, UNAUTHORIZED, INSUFFICIENT_SCOPE, INVALID_STATE, OPERATION_FAILED, …' }),
      },
      { additionalProperties: true },
    ),
  },
  { title: 'ErrorResponse' },
);

export const Paginated = <T extends TSchema>(item: T, title: string) =>
  Type.Object(
    {
      items: Type.Array(item, { title: 'Items' }),
      total: Type.Integer({ title: 'Total' }),
      limit: Type.Integer({ title: 'Limit' }),
      skip: Type.Integer({ title: 'Skip' }),
      has_next: Type.Boolean({ title: 'Has Next' }),
    },
    { title: `PublicPaginatedResponse[${title}]` },
  );

export const SourceRepoRef = Type.Object(
  {
    full_name: Type.String({ title: 'Full Name' }),
    default_branch: Type.String({ title: 'Default Branch' }),
    html_url: NullableString('Html Url'),
    provider: Type.String({ title: 'Provider' }),
  },
  { title: 'PublicRepositoryRef' },
);

export const unitResponse = (family: Family) =>
  Type.Object(
    {
      id: Type.String({ title: 'Id' }),
      name: Type.String({ title: 'Name' }),
      description: NullableString('Description'),
      repositories: Type.Optional(Type.Array(SourceRepoRef, { title: 'Repositories' })),
      archived: Type.Boolean({ title: 'Archived' }),
      created_at: DateTime('Created At'),
      updated_at: DateTime('Updated At'),
    },
    { title: family.kind === 'repository' ? 'PublicRepositoryResponse' : 'PublicApplicationResponse' },
  );

/** The fields a scan batch and its progress view share. */
const batchFields = (family: Family) => ({
  batch_id: Type.String({ title: 'Batch Id' }),
  [family.idField]: Type.String({ title: `${family.label} Id` }),
  scan_type: Type.String({ title: 'Scan Type' }),
  status: Type.String({
    title: 'Status',
    description: spoken(BATCH_STATUS.statuses),
  }),
  total_repositories: Type.Integer({ title: 'Total Repositories' }),
  scans_created: Type.Integer({ title: 'Scans Created' }),
  scans_failed: Type.Integer({ title: 'Scans Failed' }),
  scans_completed: Type.Integer({ title: 'Scans Completed' }),
  scans_assessed: Type.Integer({ title: 'Scans Assessed' }),
});

/** Beyond the contract: what changes how a batch's results must be read, e.g. a dependency scan with missing or stale vulnerability records. */
const BatchWarnings = Type.Optional(
  Type.Array(Type.String(), {
    title: 'Warnings',
    description:
      'What changes how the results must be read, each after its repository\'s name: a dependency scan whose vulnerability records are missing or older than the server\'s limit found nothing it could not check',
  }),
);

export const scanBatchResponse = (family: Family) =>
  Type.Object(
    {
      ...batchFields(family),
      error_message: NullableString('Error Message'),
      warnings: BatchWarnings,
      created_at: DateTime('Created At'),
      started_at: NullableDateTime('Started At'),
      completed_at: NullableDateTime('Completed At'),
    },
    { title: 'PublicScanBatchResponse' },
  );

export const ScanProgressRepository = Type.Object(
  {
    repository: Type.String({ title: 'Repository' }),
    branch: Type.String({ title: 'Branch' }),
    status: Type.String({ title: 'Status' }),
    status_reason: NullableString('Status Reason'),
    findings_count: Type.Optional(Nullable(Type.Integer({ title: 'Findings Count' }))),
    started_at: NullableDateTime('Started At'),
    completed_at: NullableDateTime('Completed At'),
  },
  { title: 'PublicScanProgressRepository' },
);

export const scanProgressResponse = (family: Family) =>
  Type.Object(
    {
      ...batchFields(family),
      percent_complete: Type.Number({ title: 'Percent Complete', description: '0 to 100; only ever rises' }),
      started_at: NullableDateTime('Started At'),
      completed_at: NullableDateTime('Completed At'),
      error_message: NullableString('Error Message'),
      warnings: BatchWarnings,
      repositories: Type.Optional(Type.Array(ScanProgressRepository, { title: 'Repositories' })),
    },
    { title: 'PublicScanProgressResponse' },
  );

/** Where a finding is: fields beyond the contract, shared by a finding and a scan result's entry. */
const findingLocationFields = {
  source_repo: NullableString('Source Repo'),
  start_line: Type.Optional(Nullable(Type.Integer({ title: 'Start Line' }))),
  end_line: Type.Optional(Nullable(Type.Integer({ title: 'End Line' }))),
  commit_sha: NullableString('Commit Sha'),
  snippet: Type.Optional(
    Nullable(Type.String({ title: 'Snippet', description: 'A few lines of the matched code; credentials are masked' })),
  ),
};

export const ScanFindingSummary = Type.Object(
  {
    check_id: Type.String({ title: 'Check Id' }),
    file_path: Type.String({ title: 'File Path' }),
    severity: Type.String({ title: 'Severity' }),
    message: Type.String({ title: 'Message' }),
    cwe: StringList('Cwe'),
    owasp: StringList('Owasp'),
    fingerprint: Type.String({ title: 'Fingerprint', description: "The finding's identity key, stable across rescans" }),
    ...findingLocationFields,
  },
  { title: 'PublicScanFindingSummary' },
);

/** Described, not restated: the document follows the CycloneDX 1.6 JSON schema. */
export const CycloneDxDocument = Type.Object(
  {
    bomFormat: Type.Literal('CycloneDX'),
    specVersion: Type.String(),
    serialNumber: Type.Optional(Type.String()),
    version: Type.Integer(),
    metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
    components: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
  },
  {
    title: 'CycloneDxBom',
    description: 'A CycloneDX 1.6 JSON BOM (https://cyclonedx.org/docs/1.6/json/)',
    additionalProperties: true,
  },
);

export const ScanResultsResponse = Type.Object(
  {
    batch_id: Type.String({ title: 'Batch Id' }),
    scan_type: Type.String({ title: 'Scan Type' }),
    status: Type.String({ title: 'Status' }),
    findings_count: Type.Integer({ title: 'Findings Count' }),
    findings: Type.Array(ScanFindingSummary, { title: 'Findings' }),
  },
  { title: 'PublicScanResultsResponse' },
);

export const findingResponse = (family: Family) =>
  Type.Object(
    {
      id: Type.String({ title: 'Id' }),
      [family.idField]: Type.String({ title: `${family.label} Id` }),
      check_id: Type.String({ title: 'Check Id' }),
      severity: Type.String({ title: 'Severity', description: spoken(SEVERITIES) }),
      status: Type.String({ title: 'Status' }),
      file_path: Type.String({ title: 'File Path' }),
      message: Type.String({ title: 'Message' }),
      ...(family.kind === 'repository' ? { title: NullableString('Title') } : {}),
      category: Type.String({ title: 'Category' }),
      scan_type: Type.String({ title: 'Scan Type', description: 'The scan type that found it first' }),
      detected_by: Type.Optional(
        Type.Array(Type.String(), {
          title: 'Detected By',
          description: 'Every scan type that has detected this finding, in the order they first did: a problem two scan types find is one finding',
        }),
      ),
      tool: Type.Optional(
        Type.String({
          title: 'Tool',
          description: "Whose report the finding's place and message are: Bulwark for its own scans, else the name of the tool whose SARIF log was imported",
        }),
      ),
      scan_batch_id: NullableString('Scan Batch Id'),
      ...findingLocationFields,
      cwe: StringList('Cwe'),
      owasp: StringList('Owasp'),
      references: StringList('References'),
      source_url: NullableString('Source Url'),
      cvss_base_score: Type.Optional(Nullable(Type.Number({ title: 'Cvss Base Score' }))),
      cvss_severity: NullableString('Cvss Severity'),
      cvss_vector: NullableString('Cvss Vector'),
      confidence: Type.Optional(
        Nullable(
          Type.Integer({
            title: 'Confidence',
            description: 'For a deep_ai_scan finding the model reviewed: how many of its independent verification runs confirmed it',
          }),
        ),
      ),
      validity: Type.Optional(
        Nullable(
          Type.Union([Type.Literal('valid'), Type.Literal('invalid'), Type.Literal('unknown')], {
            title: 'Validity',
            description:
              'For a secrets_scan finding when live checks are on (BULWARK_SECRETS_VERIFY): valid (the provider accepted the credential), invalid (it refused it) or unknown (no answer, or no check for this kind)',
          }),
        ),
      ),
      first_detected_at: DateTime('First Detected At'),
      last_detected_at: DateTime('Last Detected At'),
      resolved_at: NullableDateTime('Resolved At'),
      created_at: DateTime('Created At'),
      updated_at: DateTime('Updated At'),
    },
    { title: 'PublicFindingResponse' },
  );

export const FindingEventResponse = Type.Object(
  {
    id: Type.String({ title: 'Id' }),
    organization_id: Type.String({ title: 'Organization Id' }),
    repository_id: Type.String({ title: 'Repository Id' }),
    finding_id: Type.String({ title: 'Finding Id' }),
    scan_id: NullableString('Scan Id'),
    scan_type: NullableString('Scan Type'),
    event_type: Type.String({ title: 'Event Type', description: spoken(EVENT_TYPES) }),
    previous_status: NullableString('Previous Status'),
    new_status: NullableString('New Status'),
    severity: NullableString('Severity'),
    check_id: NullableString('Check Id'),
    file_path: NullableString('File Path'),
    actor_user_id: NullableString('Actor User Id'),
    metadata: Type.Optional(Type.Object({}, { additionalProperties: true, title: 'Metadata' })),
    comment: Type.Optional(Nullable(Type.String({ title: 'Comment', description: 'The reason given with a status change; null when none' }))),
    event_timestamp: DateTime('Event Timestamp'),
    created_at: DateTime('Created At'),
  },
  { title: 'PublicFindingEventResponse' },
);

export const FixPullRequestSummary = Type.Object(
  {
    repo_full_name: Type.String({ title: 'Repo Full Name' }),
    branch_name: Type.String({ title: 'Branch Name' }),
    pr_number: Type.Integer({ title: 'Pr Number' }),
    pr_url: Type.String({ title: 'Pr Url' }),
    merge_status: Type.String({ title: 'Merge Status' }),
    created_at: DateTime('Created At'),
    merged_at: NullableDateTime('Merged At'),
  },
  { title: 'PublicFixPullRequestSummary' },
);

export const FixFindingOutcome = Type.Object(
  {
    finding_id: Type.String({ title: 'Finding Id' }),
    fixed: Type.Boolean({ title: 'Fixed' }),
    detail: Type.String({ title: 'Detail', description: 'What was changed, or why the finding was not fixed' }),
  },
  { title: 'PublicFixFindingOutcome' },
);

export const fixResponse = (family: Family) =>
  Type.Object(
    {
      id: Type.String({ title: 'Id' }),
      [family.idField]: Type.String({ title: `${family.label} Id` }),
      finding_ids: Type.Array(Type.String(), { title: 'Finding Ids' }),
      title: Type.String({ title: 'Title' }),
      status: Type.String({ title: 'Status', description: spoken(FIX_STATUSES) }),
      source_repo: NullableString('Source Repo'),
      source_repo_provider: NullableString('Source Repo Provider'),
      source_scan_branch: NullableString('Source Scan Branch'),
      ...(family.kind === 'repository' ? { source_base_commit_sha: NullableString('Source Base Commit Sha') } : {}),
      error_message: NullableString('Error Message'),
      pull_requests: Type.Optional(Type.Array(FixPullRequestSummary, { title: 'Pull Requests' })),
      created_at: DateTime('Created At'),
      started_at: NullableDateTime('Started At'),
      completed_at: NullableDateTime('Completed At'),
      notes: Type.Optional(
        Type.Array(Type.String(), {
          title: 'Notes',
          description: 'What the last run leaves to you: environment variables to set, exposed credentials to rotate, major upgrades to review',
        }),
      ),
      finding_outcomes: Type.Optional(Type.Array(FixFindingOutcome, { title: 'Finding Outcomes', description: "What the last run did about each of the fix's findings" })),
    },
    { title: 'PublicFixResponse' },
  );

export const FixDiffResponse = Type.Object(
  {
    fix_id: Type.String({ title: 'Fix Id' }),
    status: Type.String({ title: 'Status' }),
    diff: NullableString('Diff'),
  },
  { title: 'PublicFixDiffResponse' },
);

export const fixProgressResponse = (family: Family) =>
  Type.Object(
    {
      fix_id: Type.String({ title: 'Fix Id' }),
      [family.idField]: Type.String({ title: `${family.label} Id` }),
      status: Type.String({ title: 'Status' }),
      started_at: NullableDateTime('Started At'),
      completed_at: NullableDateTime('Completed At'),
      duration_seconds: Type.Optional(Nullable(Type.Number({ title: 'Duration Seconds' }))),
      agent_steps_completed: Type.Optional(Type.Integer({ title: 'Agent Steps Completed', default: 0 })),
      latest_activity_at: NullableDateTime('Latest Activity At'),
      error_message: NullableString('Error Message'),
      current_step: Type.Optional(Nullable(Type.String({ title: 'Current Step', description: 'What a running fix is doing now; null when it is not running' }))),
    },
    { title: 'PublicFixProgressResponse' },
  );

export const PullRequestsCreatedResponse = Type.Object(
  {
    fix_id: Type.String({ title: 'Fix Id' }),
    pull_requests: Type.Array(FixPullRequestSummary, { title: 'Pull Requests' }),
  },
  { title: 'PublicPullRequestsCreatedResponse' },
);

export const ApiKeySummary = Type.Object(
  {
    id: Type.String({ title: 'Id' }),
    name: Type.String({ title: 'Name' }),
    key_prefix: Type.String({ title: 'Key Prefix' }),
    scopes: StringList('Scopes'),
  },
  { title: 'PublicApiKeySummary' },
);

export const MeResponse = Type.Object(
  {
    organization_id: Type.String({ title: 'Organization Id' }),
    organization_name: Type.String({ title: 'Organization Name' }),
    organization_slug: Type.String({ title: 'Organization Slug' }),
    api_key: ApiKeySummary,
  },
  { title: 'PublicMeResponse' },
);

const QuotaCounter = Type.Object(
  {
    plan: Type.Integer({ title: 'Plan' }),
    topup: Type.Integer({ title: 'Topup' }),
    used: Type.Integer({ title: 'Used' }),
    remaining: Type.Integer({ title: 'Remaining' }),
  },
  { title: 'PublicQuotaCounter' },
);

const UnitQuota = Type.Object(
  {
    max: Type.Optional(Nullable(Type.Integer({ title: 'Max' }))),
    current: Type.Integer({ title: 'Current' }),
  },
  { title: 'PublicRepositoryQuota', description: 'Monitored unit count limit; `max` is null when unlimited.' },
);

/** Serves both families' clients at once: it carries the `repositories` and the `applications` counter. */
export const QuotaBalanceResponse = Type.Object(
  {
    period_start: DateTime('Period Start'),
    period_end: DateTime('Period End'),
    prs: QuotaCounter,
    sast_scans: QuotaCounter,
    deep_ai_scans: QuotaCounter,
    repositories: UnitQuota,
    applications: UnitQuota,
  },
  { title: 'PublicQuotaBalanceResponse' },
);

// ---- requests ----

export const Pagination = (defaultLimit: number) => ({
  limit: Type.Integer({ minimum: 1, maximum: 200, default: defaultLimit, title: 'Limit' }),
  // Bounded so every accepted value is an exact integer both databases take as an OFFSET.
  skip: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, title: 'Skip' }),
});

export const OptionalFilter = (description: string) => Type.Optional(Type.String({ description }));

/**
 * An optional filter that takes one of `values` (the enum's own declaration), read case-insensitively; any
 * other value is a 422 listing them.
 */
export const EnumFilter = <T extends string>(values: readonly T[], description: string) =>
  Type.Optional(Type.Unsafe<T>(Type.String({ enum: [...values], description: `${description}: one of ${values.join(', ')}` })));

export const scanCreateRequest = (family: Family) =>
  Type.Object(
    { scan_type: Type.String({ enum: [...family.scanTypes], description: `One of ${family.scanTypes.join(', ')}` }) },
    { title: 'PublicScanCreateRequest' },
  );

export const FindingStatusUpdateRequest = Type.Object(
  {
    status: Type.String({ enum: [...FINDING_STATUSES], description: `One of ${FINDING_STATUSES.join(', ')}` }),
    comment: Type.Optional(
      Nullable(
        Type.String({
          maxLength: TRIAGE_COMMENT_MAX_LENGTH,
          title: 'Comment',
          description: 'Why the status changes; kept on the status_changed event',
        }),
      ),
    ),
  },
  { title: 'PublicFindingStatusUpdateRequest' },
);

export const FixCreateRequest = Type.Object(
  {
    finding_ids: Type.Optional(Type.Array(Type.String(), { minItems: 1, title: 'Finding Ids' })),
    title: Type.String({ minLength: 1, maxLength: 200, title: 'Title' }),
    instructions: Type.String({ minLength: 1, title: 'Instructions' }),
    source_repo: Type.String({ title: 'Source Repo', description: 'Repository full_name (owner/repo)' }),
    source_repo_provider: Type.Optional(Type.String({ enum: [...CODE_HOST_NAMES], default: 'github', title: 'Source Repo Provider' })),
    source_scan_branch: Type.Optional(Nullable(Type.String({ title: 'Source Scan Branch' }))),
  },
  { title: 'PublicFixCreateRequest' },
);

export const FixRefineRequest = Type.Object(
  { instructions: Type.String({ minLength: 1, maxLength: 12000, title: 'Instructions' }) },
  { title: 'PublicFixRefineRequest' },
);

export const CreatePullRequestsRequest = Type.Object(
  {
    title: NullableString('Title'),
    body: NullableString('Body'),
    branch_name: NullableString('Branch Name'),
  },
  { title: 'PublicCreatePRRequest' },
);
