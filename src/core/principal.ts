import type { OrganizationName, StoredApiKey } from '../store/api-keys.ts';
import type { Scope } from './scopes.ts';

/** Who is calling: one API key of one organization, or a person signed in to the console acting in one. */
export interface Principal {
  orgId: string;
  /** The key's id; for a console session, the user's id (what events record as the actor). */
  keyId: string;
  /** The signed-in user, for a console session. */
  userId?: string;
  scopes: Scope[];
  /** The key and its organization as read when the request was authenticated, for routes that show them. */
  apiKey: StoredApiKey;
  organization: OrganizationName;
}
