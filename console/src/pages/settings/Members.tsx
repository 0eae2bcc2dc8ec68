import { useState, type FormEvent } from 'react';
import { api } from '../../api/client.ts';
import { errorCode, errorText } from '../../api/errors.ts';
import { ROLES, type Role } from '../../api/vocabulary.ts';
import { Alert, ConfirmButton, DataTable, FormPanel, LoadedView, MessageAlert, PageHeader, SelectField, type Message } from '../../components/ui.tsx';
import { formatDate } from '../../lib/format.ts';
import { atLeast, useOrganization } from '../../lib/organization.ts';
import { useLoad } from '../../lib/use-load.ts';
import { useSession } from '../../session.tsx';

const ROLE_HELP: Record<Role, string> = {
  owner: 'everything, including other owners',
  admin: 'members and API keys',
  member: 'scans, triage, fixes, pull requests',
  viewer: 'read only',
};

function explain(error: unknown, response: Response) {
  if (errorCode(error) === 'LAST_OWNER') return 'The organization must keep at least one owner: make someone else owner first.';
  return errorText(error, response);
}

export function MembersPage() {
  const org = useOrganization();
  const { session } = useSession();
  const path = { org_id: org.id };
  const members = useLoad(`members:${org.id}`, () => api.GET('/console/api/organizations/{org_id}/members', { params: { path } }));
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<Message | null>(null);
  const canManage = atLeast(org.role, 'admin');
  // Only owners hand out or take away the owner role.
  const assignable = ROLES.filter((r) => r !== 'owner' || org.role === 'owner');

  const add = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setMessage(null);
    const { data, error, response } = await api.POST('/console/api/organizations/{org_id}/members', { params: { path }, body: { email: email.trim(), role } });
    setBusy(false);
    if (!data) {
      const text = response.status === 404 ? `No user has the email ${email.trim()}. They need an account before they can be added.` : explain(error, response);
      return setMessage({ kind: 'error', text });
    }
    setMessage({ kind: 'success', text: `${data.user.email} was added as ${data.role}.` });
    setEmail('');
    members.reload();
  };

  const changeRole = async (userId: string, who: string, next: Role) => {
    setMessage(null);
    const { data, error, response } = await api.PATCH('/console/api/organizations/{org_id}/members/{user_id}', { params: { path: { ...path, user_id: userId } }, body: { role: next } });
    setMessage(data ? { kind: 'success', text: `${who} is now ${data.role}.` } : { kind: 'error', text: explain(error, response) });
    members.reload();
  };

  const remove = async (userId: string, who: string) => {
    setMessage(null);
    const { error, response } = await api.DELETE('/console/api/organizations/{org_id}/members/{user_id}', { params: { path: { ...path, user_id: userId } } });
    setMessage(response.ok ? { kind: 'success', text: `${who} was removed from ${org.name}.` } : { kind: 'error', text: explain(error, response) });
    members.reload();
  };

  return (
    <>
      <PageHeader title="Members" />
      {canManage ? (
        <FormPanel titleId="add-member" title="Add a member" layout="row" onSubmit={add} submitLabel="Add member" disabled={busy}>
          <div className="field" style={{ flex: '1 1 18rem' }}>
            <label htmlFor="member-email">Email</label>
            <input id="member-email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} placeholder="name@example.com" />
          </div>
          <SelectField id="member-role" label="Role" value={role} options={assignable} optionLabel={(r) => `${r} — ${ROLE_HELP[r]}`} onChange={setRole} />
        </FormPanel>
      ) : (
        <Alert kind="info">Only admins and owners manage members. Your role in {org.name} is {org.role}.</Alert>
      )}
      <MessageAlert message={message} />
      <LoadedView load={members} isEmpty={(page) => !page.items.length} empty="No members.">
        {(page) => (
          <DataTable caption={<>Members of {org.name}</>} columns={['Member', 'Role', 'Added', { label: 'Actions', hidden: true }]}>
            {page.items.map((member) => {
              const who = member.user.name ? `${member.user.name} (${member.user.email})` : member.user.email;
              const self = member.user.id === session?.user.id;
              const editable = canManage && (member.role !== 'owner' || org.role === 'owner');
              return (
                <tr key={member.user.id}>
                  <td>
                    {member.user.name ? <div>{member.user.name}</div> : null}
                    <div className={member.user.name ? 'muted small-text' : undefined}>{member.user.email}</div>
                    {self ? <span className="muted small-text">(you)</span> : null}
                  </td>
                  <td>
                    {editable ? (
                      <select aria-label={`Role of ${member.user.email}`} value={member.role} onChange={(e) => void changeRole(member.user.id, who, e.target.value as Role)}>
                        {assignable.map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>
                    ) : (
                      member.role
                    )}
                  </td>
                  <td>{formatDate(member.added_at)}</td>
                  <td>
                    {editable ? (
                      <ConfirmButton
                        label="Remove"
                        accessibleLabel={`Remove ${member.user.email}`}
                        question={
                          <>
                            Remove <strong>{who}</strong> from {org.name}? {self ? 'You will lose access to it.' : 'They lose access at once.'}
                          </>
                        }
                        confirmLabel="Remove member"
                        onConfirm={() => remove(member.user.id, who)}
                      />
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </DataTable>
        )}
      </LoadedView>
    </>
  );
}
