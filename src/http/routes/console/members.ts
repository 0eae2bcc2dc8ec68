import type { FastifyInstance, FastifyRequest } from 'fastify';
import { addMember, changeMemberRole, membersOf, removeMember, requireRole } from '../../../core/accounts.ts';
import { notFound } from '../../../core/errors.ts';
import type { Store } from '../../../store/database.ts';
import { AddMemberRequest, ChangeRoleRequest, Member, MemberList, MemberParams, NoContent, OrgParams } from '../../console-schemas.ts';
import { responses, typed } from '../../route-kit.ts';
import { requireSession } from '../../session.ts';
import { requireManager } from './access.ts';

const tags = ['console'];

/** An organization's members: anyone in it reads the list; its admins and owners add, change and remove (owners by owners). */
export async function consoleMemberRoutes(app: FastifyInstance, { store }: { store: Store }) {
  const api = typed(app);
  const manager = (request: FastifyRequest, orgId: string) => requireManager(store, request, orgId);

  api.get(
    '/console/api/organizations/:org_id/members',
    { schema: { tags, summary: "The organization's members and their roles", operationId: 'list_members', params: OrgParams, response: responses({ 200: MemberList }, [401, 403, 404]), security: [] } },
    async (request) => {
      await requireRole(store.db, request.params.org_id, requireSession(request).user.id, 'viewer');
      return { items: await membersOf(store.db, request.params.org_id) };
    },
  );

  api.post(
    '/console/api/organizations/:org_id/members',
    {
      schema: { tags, summary: 'Add an existing user to the organization', operationId: 'add_member', params: OrgParams, body: AddMemberRequest, response: responses({ 201: Member }, [401, 403, 404, 409]), security: [] },
    },
    async (request, reply) => {
      const session = await manager(request, request.params.org_id);
      // Only an owner makes another owner.
      if (request.body.role === 'owner') await requireRole(store.db, request.params.org_id, session.user.id, 'owner');
      return reply.status(201).send(await addMember(store.db, request.params.org_id, request.body.email, request.body.role));
    },
  );

  api.patch(
    '/console/api/organizations/:org_id/members/:user_id',
    { schema: { tags, summary: "Change a member's role", operationId: 'change_member_role', params: MemberParams, body: ChangeRoleRequest, response: responses({ 200: Member }, [401, 403, 404, 409]), security: [] } },
    async (request) => {
      const { org_id, user_id } = request.params;
      const session = await manager(request, org_id);
      const target = (await membersOf(store.db, org_id)).find((m) => m.user.id === user_id);
      if (!target) throw notFound('Member');
      // Owners are made and unmade by owners.
      if (request.body.role === 'owner' || target.role === 'owner') await requireRole(store.db, org_id, session.user.id, 'owner');
      return changeMemberRole(store.db, org_id, user_id, request.body.role);
    },
  );

  api.delete(
    '/console/api/organizations/:org_id/members/:user_id',
    { schema: { tags, summary: 'Remove a member from the organization', operationId: 'remove_member', params: MemberParams, response: responses({ 204: NoContent }, [401, 403, 404, 409]), security: [] } },
    async (request, reply) => {
      const { org_id, user_id } = request.params;
      const session = await manager(request, org_id);
      const target = (await membersOf(store.db, org_id)).find((m) => m.user.id === user_id);
      if (!target) throw notFound('Member');
      if (target.role === 'owner') await requireRole(store.db, org_id, session.user.id, 'owner');
      await removeMember(store.db, org_id, user_id);
      return reply.status(204).send();
    },
  );
}
