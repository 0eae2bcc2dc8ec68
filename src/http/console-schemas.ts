import { Type } from '@sinclair/typebox';
import { CODE_HOSTS } from '../code-hosts/index.ts';
import { EVENT_TYPES } from '../core/finding-events.ts';
import { ROLES } from '../core/roles.ts';
import { SCOPES } from '../core/scopes.ts';
import { VOCABULARY_SCHEMAS } from './vocabulary.ts';

// Shapes of the console's own routes (/console/api, the device flow). The /api/v1 contract's shapes are in schemas.ts.

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const RoleSchema = Type.Union(ROLES.map((r) => Type.Literal(r)), { title: 'Role' });
export const ScopeSchema = Type.Union(SCOPES.map((s) => Type.Literal(s)), { title: 'Scope' });

export const UserSummary = Type.Object(
  { id: Type.String(), email: Type.String(), name: Type.Union([Type.String(), Type.Null()]) },
  { title: 'UserSummary' },
);

export const SessionResponse = Type.Object(
  {
    user: UserSummary,
    csrf_token: Type.String({ description: 'Send it as X-CSRF-Token with every change made with this session' }),
    organizations: Type.Array(
      Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String(), role: RoleSchema }, { title: 'OrganizationMembership' }),
    ),
  },
  { title: 'SessionResponse' },
);

export const SignInRequest = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 320 }), password: Type.String({ minLength: 1, maxLength: 1024 }) },
  { title: 'SignInRequest', additionalProperties: false },
);

export const OrgParams = Type.Object({ org_id: Type.String() });
export const KeyParams = Type.Object({ org_id: Type.String(), key_id: Type.String() });
export const MemberParams = Type.Object({ org_id: Type.String(), user_id: Type.String() });
export const NoContent = Type.Null({ description: 'No content' });

export const ConsoleApiKey = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    prefix: Type.String(),
    scopes: Type.Array(ScopeSchema),
    created_by: Type.Union([Type.Object({ id: Type.String(), email: Type.String() }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    last_used_at: Nullable(Type.String({ format: 'date-time' })),
    expires_at: Nullable(Type.String({ format: 'date-time' })),
    revoked_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'ConsoleApiKey' },
);

export const ApiKeyList = Type.Object({ items: Type.Array(ConsoleApiKey) }, { title: 'ApiKeyList' });

export const CreateApiKeyRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: Type.Array(ScopeSchema, { minItems: 1, uniqueItems: true }),
    expires_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  },
  { title: 'CreateApiKeyRequest', additionalProperties: false },
);

export const CreatedApiKey = Type.Object(
  { api_key: ConsoleApiKey, key: Type.String({ description: 'The key itself, shown this once' }) },
  { title: 'CreatedApiKey' },
);

export const Member = Type.Object({ user: UserSummary, role: RoleSchema, added_at: Type.String({ format: 'date-time' }) }, { title: 'Member' });
export const MemberList = Type.Object({ items: Type.Array(Member) }, { title: 'MemberList' });
export const AddMemberRequest = Type.Object(
  { email: Type.String({ minLength: 3, maxLength: 320 }), role: RoleSchema },
  { title: 'AddMemberRequest', additionalProperties: false },
);
export const ChangeRoleRequest = Type.Object({ role: RoleSchema }, { title: 'ChangeRoleRequest', additionalProperties: false });

// Device flow: ../shared/contract/device-flow.schemas.json
const DeviceStatus = Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('consumed'), Type.Literal('denied')], { title: 'Status' });

export const DeviceCodeRequest = Type.Object(
  { client_name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])) },
  { title: 'DeviceCodeRequest' },
);
export const DeviceCodeResponse = Type.Object(
  {
    device_code: Type.String(),
    user_code: Type.String(),
    verification_uri: Type.String(),
    verification_uri_complete: Type.String(),
    expires_in: Type.Integer(),
    interval: Type.Integer(),
  },
  { title: 'DeviceCodeResponse' },
);
export const DeviceTokenRequest = Type.Object(
  { grant_type: Type.Optional(Type.String()), device_code: Type.Optional(Type.String()), client_id: Type.Optional(Type.String()) },
  { title: 'DeviceTokenRequest' },
);
export const DeviceTokenResponse = Type.Object(
  { access_token: Type.String(), token_type: Type.Literal('Bearer'), scope: Type.String() },
  { title: 'DeviceTokenResponse' },
);
export const DeviceTokenError = Type.Object(
  { error: Type.String(), error_description: Type.Optional(Type.String()) },
  { title: 'DeviceTokenError' },
);
export const UserCodeParams = Type.Object({ user_code: Type.String({ maxLength: 20 }) });
export const DeviceAuthorizationView = Type.Object(
  {
    user_code: Type.String(),
    client_name: Type.Union([Type.String(), Type.Null()]),
    status: DeviceStatus,
    requested_at: Type.String({ format: 'date-time' }),
    expires_at: Type.String({ format: 'date-time' }),
    requested_from: Type.Union([Type.String(), Type.Null()], { description: 'The client address that asked for the code' }),
  },
  { title: 'DeviceAuthorizationView' },
);
export const DeviceApprovalRequest = Type.Object(
  { organization_id: Type.String({ minLength: 1 }), device_label: Type.Optional(Type.String({ minLength: 1, maxLength: 80, default: 'CLI device' })) },
  { title: 'DeviceApprovalRequest' },
);
export const DeviceApprovalResponse = Type.Object({ status: DeviceStatus }, { title: 'DeviceApprovalResponse' });

/** The code hosts a repository can live on, each titled with its label: the console's list of hosts. */
export const CodeHostSchema = Type.Union(
  CODE_HOSTS.map((host) => Type.Literal(host.name, { title: host.label })),
  { title: 'CodeHost' },
);

/**
 * Schemas the OpenAPI document names in components.schemas, besides using them in routes:
 * scripts/build-console.ts copies them to console/src/api/schemas.json, where the console reads the
 * values (and their titles) of these lists at run time.
 */
export const PUBLISHED_SCHEMAS = { ...VOCABULARY_SCHEMAS, CodeHost: CodeHostSchema };

export const UnitParams = Type.Object({ org_id: Type.String(), unit_id: Type.String() });

export const RegisterRepositoryRequest = Type.Object(
  {
    provider: CodeHostSchema,
    full_name: Type.String({ minLength: 3, maxLength: 300, description: 'owner/name (organization/project/repository on Azure DevOps)' }),
    default_branch: Type.Optional(Type.String({ minLength: 1, maxLength: 255, default: 'main' })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Shown name; the full name by default' })),
    clone_url: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 2000 }), Type.Null()])),
    access_token: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 4000 }), Type.Null()])),
  },
  { title: 'RegisterRepositoryRequest', additionalProperties: false },
);

export const RegisteredRepository = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    provider: Type.String(),
    full_name: Type.String(),
    default_branch: Type.String(),
    clone_url: Type.String(),
    has_token: Type.Boolean({ description: 'Whether an access token is stored (encrypted; never shown again)' }),
  },
  { title: 'RegisteredRepository' },
);

export const SourceParams = Type.Object({ org_id: Type.String(), unit_id: Type.String(), source_id: Type.String() });

/** A source repository as the console's settings show it: whether a token is stored and when it changed, never the token. */
export const SourceRepository = Type.Object(
  {
    id: Type.String(),
    provider: Type.String(),
    full_name: Type.String(),
    default_branch: Type.String(),
    clone_url: Type.String(),
    has_token: Type.Boolean({ description: 'Whether an access token is stored (encrypted; never shown)' }),
    token_changed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the access token was last set, replaced or removed; null if none ever was',
    }),
  },
  { title: 'SourceRepository' },
);
export const SourceRepositoryList = Type.Object({ items: Type.Array(SourceRepository) }, { title: 'SourceRepositoryList' });

export const SetSourceTokenRequest = Type.Object(
  // Its length and characters are checked by setSourceToken, whose refusal never echoes the value.
  { token: Type.String({ description: 'The access token (at most 4000 characters, no whitespace); stored encrypted, never shown again' }) },
  { title: 'SetSourceTokenRequest', additionalProperties: false },
);

export const ArchiveRequest = Type.Object({ archived: Type.Boolean() }, { title: 'ArchiveRequest', additionalProperties: false });
export const ArchivedUnit = Type.Object({ id: Type.String(), archived: Type.Boolean() }, { title: 'ArchivedUnit' });

export const WebhookParams = Type.Object({ org_id: Type.String(), hook_id: Type.String() });
export const CodeHostWebhook = Type.Object(
  {
    id: Type.String(),
    provider: Type.String({ description: 'The code host: github, gitlab or azure_devops' }),
    repository_id: Type.Union([Type.String(), Type.Null()], { description: 'The repository it covers; null: every repository of the organization on that host' }),
    url: Type.String({ description: 'The address to give the code host' }),
    setup: Type.Object({ secret: Type.String(), events: Type.String() }, { description: 'Where the secret goes on the host and which events to tick' }),
    created_at: Type.String({ format: 'date-time' }),
    last_delivery_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'CodeHostWebhook' },
);
export const CodeHostWebhookList = Type.Object({ items: Type.Array(CodeHostWebhook) }, { title: 'CodeHostWebhookList' });
export const CreateCodeHostWebhookRequest = Type.Object(
  { provider: Type.String({ minLength: 1, maxLength: 40 }), repository_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()])) },
  { title: 'CreateCodeHostWebhookRequest', additionalProperties: false },
);
export const CreatedCodeHostWebhook = Type.Object(
  { webhook: CodeHostWebhook, secret: Type.String({ description: 'Shown in this answer only' }) },
  { title: 'CreatedCodeHostWebhook' },
);
export const CodeHostDelivery = Type.Object(
  {
    delivery_id: Type.String(),
    event: Type.String(),
    received_at: Type.String({ format: 'date-time' }),
    applied_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    outcome: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'CodeHostDelivery' },
);
export const CodeHostDeliveryList = Type.Object({ items: Type.Array(CodeHostDelivery) }, { title: 'CodeHostDeliveryList' });

export const EndpointParams = Type.Object({ org_id: Type.String(), endpoint_id: Type.String() });
export const EndpointDeliveryParams = Type.Object({ org_id: Type.String(), endpoint_id: Type.String(), delivery_id: Type.String() });
const FindingEventTypeName = Type.String({ enum: [...EVENT_TYPES] });
const EventTypeList = Type.Array(FindingEventTypeName, {
  maxItems: EVENT_TYPES.length,
  description: 'The finding event types it receives (sent as finding.<type>); empty or omitted: all of them',
});
export const WebhookEndpoint = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    description: Type.String(),
    events: Type.Array(FindingEventTypeName, { description: 'The finding event types it receives; empty: all of them' }),
    enabled: Type.Boolean(),
    disabled_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it was disabled: by an admin, or automatically after its deliveries kept failing' }),
    disabled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    failing_since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'The first failed attempt since the last delivered one' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'WebhookEndpoint' },
);
export const WebhookEndpointList = Type.Object({ items: Type.Array(WebhookEndpoint) }, { title: 'WebhookEndpointList' });
export const CreateWebhookEndpointRequest = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2000, description: 'An https:// URL on a public address' }),
    events: Type.Optional(EventTypeList),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    enabled: Type.Optional(Type.Boolean()),
  },
  { title: 'CreateWebhookEndpointRequest', additionalProperties: false },
);
export const UpdateWebhookEndpointRequest = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    events: Type.Optional(EventTypeList),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    enabled: Type.Optional(Type.Boolean({ description: 'true also clears why it was disabled' })),
  },
  { title: 'UpdateWebhookEndpointRequest', additionalProperties: false },
);
export const WebhookEndpointWithSecret = Type.Object(
  { endpoint: WebhookEndpoint, secret: Type.String({ description: 'The signing secret (whsec_…), shown in this answer only' }) },
  { title: 'WebhookEndpointWithSecret' },
);
const NullableTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
export const WebhookDelivery = Type.Object(
  {
    id: Type.String(),
    event_id: Type.String({ description: "The finding event's id, sent as webhook-id" }),
    event_type: FindingEventTypeName,
    status: Type.String({ enum: ['pending', 'delivered', 'failed'] }),
    attempt: Type.Integer({ description: 'Attempts made so far' }),
    response_status: Type.Union([Type.Integer(), Type.Null()], { description: "The last attempt's HTTP status; null when no answer came" }),
    latency_ms: Type.Union([Type.Integer(), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
    response_body: Type.Union([Type.String(), Type.Null()], { description: "The start of the last answer's body (4 KiB at most)" }),
    created_at: Type.String({ format: 'date-time' }),
    last_attempt_at: NullableTime,
    next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the next attempt is due; null once delivered or failed' }),
    finished_at: NullableTime,
  },
  { title: 'WebhookDelivery' },
);
export const WebhookDeliveryList = Type.Object({ items: Type.Array(WebhookDelivery) }, { title: 'WebhookDeliveryList' });
export const WebhookDeliveryQuery = Type.Object({
  status: Type.Optional(Type.String({ enum: ['pending', 'delivered', 'failed'] })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
});

export const ScanTriggersSchema = Type.Object(
  {
    on_push: Type.Array(Type.String({ maxLength: 40 }), { maxItems: 10, description: 'Scan types started when a push to the scanned branch is reported' }),
    on_pull_request: Type.Optional(
      Type.Array(Type.String({ maxLength: 40 }), { maxItems: 10, description: "Scan types run on a pull request's head when one into the scanned branch is opened or pushed to (none when left out)" }),
    ),
  },
  { title: 'ScanTriggers', additionalProperties: false },
);
