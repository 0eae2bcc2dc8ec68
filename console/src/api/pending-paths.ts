// Routes of the console API (see the server's console routes) that the generated schema.d.ts may not
// describe yet. They are written in openapi-typescript's shape so the same typed client serves them; each
// entry yields to the generated one as soon as the server's OpenAPI document has that path (client.ts).

type Json<T> = { headers: { [name: string]: unknown }; content: { 'application/json': T } };
type Empty = { headers: { [name: string]: unknown }; content?: never };
type Body<T> = { content: { 'application/json': T } };

export interface ErrorEnvelope {
  detail: { detail: string; error_code: string; [extra: string]: unknown } | { loc: (string | number)[]; msg: string; type: string }[];
}
type Errors = { 400: Json<ErrorEnvelope>; 401: Json<ErrorEnvelope>; 403: Json<ErrorEnvelope>; 404: Json<ErrorEnvelope>; 409: Json<ErrorEnvelope>; 422: Json<ErrorEnvelope>; 429: Json<ErrorEnvelope> };

export type Role = 'owner' | 'admin' | 'member' | 'viewer';
export interface SessionOrganization { id: string; name: string; slug: string; role: Role }
export interface Session {
  user: { id: string; email: string; name: string | null };
  csrf_token: string;
  organizations: SessionOrganization[];
}
export interface ConsoleApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  created_by: { id: string; email: string } | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}
export interface Member { user: { id: string; email: string; name: string | null }; role: Role; added_at: string }
export interface DeviceAuthorizationView {
  user_code: string;
  client_name: string;
  status: string;
  requested_at: string;
  expires_at: string;
}
/** Proposed: registering a repository from the console (no such route in the public API). */
export interface CreateRepositoryBody {
  provider: 'github' | 'gitlab' | 'azure_devops';
  full_name: string;
  default_branch: string;
  clone_url?: string | null;
  access_token?: string | null;
}

type Op<Path, Req, Res> = {
  parameters: [Path] extends [never]
    ? { query?: never; header?: never; path?: never; cookie?: never }
    : { query?: never; header?: never; path: Path; cookie?: never };
  responses: Res & Errors;
} & ([Req] extends [never] ? { requestBody?: never } : { requestBody: Req });
type OrgPath = { org_id: string };

export interface PendingPaths {
  '/console/api/session': {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: Op<never, never, { 200: Json<Session> }>;
    post: Op<never, Body<{ email: string; password: string }>, { 200: Json<Session> }>;
    delete: Op<never, never, { 204: Empty }>;
  };
  '/console/api/sessions': {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    delete: Op<never, never, { 204: Empty }>;
  };
  '/console/api/organizations/{org_id}/api-keys': {
    parameters: { query?: never; header?: never; path: OrgPath; cookie?: never };
    get: Op<OrgPath, never, { 200: Json<{ items: ConsoleApiKey[] }> }>;
    post: Op<OrgPath, Body<{ name: string; scopes: string[]; expires_at?: string | null }>, { 201: Json<{ api_key: ConsoleApiKey; key: string }> }>;
  };
  '/console/api/organizations/{org_id}/api-keys/{key_id}': {
    parameters: { query?: never; header?: never; path: OrgPath & { key_id: string }; cookie?: never };
    delete: Op<OrgPath & { key_id: string }, never, { 200: Json<ConsoleApiKey> }>;
  };
  '/console/api/organizations/{org_id}/members': {
    parameters: { query?: never; header?: never; path: OrgPath; cookie?: never };
    get: Op<OrgPath, never, { 200: Json<{ items: Member[] }> }>;
    post: Op<OrgPath, Body<{ email: string; role: Role }>, { 201: Json<Member> }>;
  };
  '/console/api/organizations/{org_id}/members/{user_id}': {
    parameters: { query?: never; header?: never; path: OrgPath & { user_id: string }; cookie?: never };
    patch: Op<OrgPath & { user_id: string }, Body<{ role: Role }>, { 200: Json<Member> }>;
    delete: Op<OrgPath & { user_id: string }, never, { 204: Empty }>;
  };
  '/console/api/organizations/{org_id}/repositories': {
    parameters: { query?: never; header?: never; path: OrgPath; cookie?: never };
    post: Op<OrgPath, Body<CreateRepositoryBody>, { 201: Json<{ id: string }> }>;
  };
  '/device-authorizations/{user_code}': {
    parameters: { query?: never; header?: never; path: { user_code: string }; cookie?: never };
    get: Op<{ user_code: string }, never, { 200: Json<DeviceAuthorizationView> }>;
  };
  '/device-authorizations/{user_code}/approve': {
    parameters: { query?: never; header?: never; path: { user_code: string }; cookie?: never };
    post: Op<{ user_code: string }, Body<{ organization_id: string; device_label?: string }>, { 200: Json<{ status: 'approved' }> }>;
  };
  '/device-authorizations/{user_code}/deny': {
    parameters: { query?: never; header?: never; path: { user_code: string }; cookie?: never };
    post: Op<{ user_code: string }, never, { 200: Json<{ status: 'denied' }> }>;
  };
}
