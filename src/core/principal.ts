import type { OrganizationName, StoredApiKey } from '../store/api-keys.ts';
import type { Scope } from './scopes.ts';

/** Who is calling: one API key of one organization. */
export interface Principal {
  orgId: string;
  keyId: string;
  scopes: Scope[];
  /** The key and its organization as read when the request was authenticated, for routes that show them. */
  apiKey: StoredApiKey;
  organization: OrganizationName;
}
