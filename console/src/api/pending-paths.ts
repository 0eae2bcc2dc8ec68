// Routes the console calls that the server's OpenAPI document does not describe (yet), in openapi-typescript's
// shape so the same typed client serves them. Each entry yields to the generated one as soon as the server's
// document has that path (client.ts), and then should be deleted here.
import type { ErrorEnvelope } from './types.ts';

type Json<T> = { headers: { [name: string]: unknown }; content: { 'application/json': T } };

/**
 * Proposed: registering a repository from the console. The public API has no create route, and the server
 * does not offer one yet; the form says so when this answers 404.
 */
export interface CreateRepositoryBody {
  provider: 'github' | 'gitlab' | 'azure_devops';
  full_name: string;
  default_branch: string;
  clone_url?: string | null;
  access_token?: string | null;
}

export interface PendingPaths {
  '/console/api/organizations/{org_id}/repositories': {
    parameters: { query?: never; header?: never; path: { org_id: string }; cookie?: never };
    post: {
      parameters: { query?: never; header?: never; path: { org_id: string }; cookie?: never };
      requestBody: { content: { 'application/json': CreateRepositoryBody } };
      responses: { 201: Json<{ id: string }>; 400: Json<ErrorEnvelope>; 403: Json<ErrorEnvelope>; 404: Json<ErrorEnvelope>; 409: Json<ErrorEnvelope>; 422: Json<ErrorEnvelope> };
    };
  };
}
