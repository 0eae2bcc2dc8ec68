import { createUser, setMembership, setUserDisabled } from '../../core/accounts.ts';
import { isRole, ROLES } from '../../core/roles.ts';
import { allUsers } from '../../store/accounts.ts';
import type { CliContext } from '../context.ts';
import { requireOrg } from '../context.ts';
import { report, required, UsageError } from '../output.ts';

type Values = Record<string, string | boolean | string[] | undefined>;

/** `user create --email E --password-env VAR --org SLUG --role R`: the password is read from the environment, never from argv. */
export async function userCreate(ctx: CliContext, values: Values, json: boolean) {
  const email = required(values, 'email');
  const variable = required(values, 'password-env');
  const password = process.env[variable];
  if (!password) throw new UsageError(`the environment variable ${variable} (--password-env) is not set or empty`);
  const role = (values.role as string | undefined) ?? 'member';
  if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  const org = values.org ? await requireOrg(ctx, String(values.org)) : undefined;
  let user;
  try {
    user = await createUser(ctx.store.db, { email, password, name: (values.name as string | undefined) ?? null });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (org) await setMembership(ctx.store.db, org.id, user.id, role);
  report(
    json,
    { id: user.id, email: user.email, name: user.name, organizations: org ? [{ slug: org.slug, role }] : [] },
    `created user ${user.email} (${user.id})${org ? `, ${role} of ${org.slug}` : ''}`,
  );
}

export async function userList(ctx: CliContext, json: boolean) {
  const users = await allUsers(ctx.store.db);
  report(
    json,
    { users },
    users
      .map((u) => `${u.id}  ${u.email}  ${u.organizations.map((o) => `${o.slug}:${o.role}`).join(',') || '(no organization)'}${u.disabled_at ? '  DISABLED ' + u.disabled_at : ''}`)
      .join('\n') || '(no users)',
  );
}

export async function userDisable(ctx: CliContext, positionals: string[], values: Values, json: boolean) {
  const email = positionals[0];
  if (!email) throw new UsageError('usage: bulwark user disable EMAIL [--enable]');
  let user;
  try {
    user = await setUserDisabled(ctx.store.db, email, !values.enable);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  report(json, user, `${user.disabled_at ? 'disabled (and signed out everywhere)' : 'enabled'} ${user.email}`);
}
