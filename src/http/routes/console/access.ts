import type { FastifyRequest } from 'fastify';
import { requireRole } from '../../../core/accounts.ts';
import { MANAGES_ORGANIZATION } from '../../../core/roles.ts';
import type { Store } from '../../../store/database.ts';
import { requireSession } from '../../session.ts';

/** The session, with at least the role that manages the organization in the path. */
export async function requireManager(store: Store, request: FastifyRequest, orgId: string) {
  const session = requireSession(request);
  await requireRole(store.db, orgId, session.user.id, MANAGES_ORGANIZATION);
  return session;
}
