// Shapes of the console API, taken from the generated schema (schema.d.ts) so they follow the server.
import type { paths } from './schema';

type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;
/** The JSON body of an operation's success answer (200, 201 or 202). */
export type Success<O> = O extends { responses: infer R } ? JsonOf<R extends { 200: infer X } ? X : R extends { 201: infer X } ? X : R extends { 202: infer X } ? X : never> : never;

export type Session = Success<paths['/console/api/session']['get']>;
export type SessionOrganization = Session['organizations'][number];
export type Role = SessionOrganization['role'];
export type ConsoleApiKey = Success<paths['/console/api/organizations/{org_id}/api-keys']['get']>['items'][number];
export type Member = Success<paths['/console/api/organizations/{org_id}/members']['get']>['items'][number];
export type DeviceAuthorizationView = Success<paths['/device-authorizations/{user_code}']['get']>;
export type SignInMethods = Success<paths['/console/api/sign-in-methods']['get']>;
type BodyOf<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
export type CreateRepositoryBody = BodyOf<paths['/console/api/organizations/{org_id}/repositories']['post']>;

/** The service's error body: `{detail: {detail, error_code}}`, or a 422's list of invalid fields. */
export interface ErrorEnvelope {
  detail: { detail: string; error_code: string; [extra: string]: unknown } | { loc: (string | number)[]; msg: string; type: string }[];
}
