import { sql, type Kysely } from 'kysely';

/** When each source repository's access token was last set, replaced or removed (shown, the token never is). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('source_repos').addColumn('token_changed_at', 'text').execute();
  // A token stored at registration was last changed then.
  await sql`update source_repos set token_changed_at = created_at where token_ciphertext is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('source_repos').dropColumn('token_changed_at').execute();
}
