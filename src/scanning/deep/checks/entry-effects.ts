import type { Handler } from '../python-program.ts';
import type { Hotspots } from './shared.ts';

// What a Python entry point does that only some callers should be able to do: what makes one reachable
// without authentication worth a finding. Reading public data is not one; writing stored data, reading
// users' accounts, running commands or code, and administering the application are.

/** Writes to the store or the disk: ORM writes (SQLAlchemy, Django, Peewee, a DAO's `Model.create`), MongoDB writes, SQL that changes rows, removed files. */
const WRITES =
  /\.commit\s*\(|\bsession\.(?:add|add_all|delete|merge)\s*\(|\.save\s*\(|\.objects\.(?:create|get_or_create|update_or_create|bulk_create)\s*\(|\b[A-Z]\w*\.(?:create|insert|update|delete)\s*\(|\)\.(?:update|delete)\s*\(|\b\w+\.delete\s*\(\s*\)|\.(?:insert|update|delete|replace)_(?:one|many)\s*\(|\bINSERT\s+(?:OR\s+\w+\s+)?INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b|\bDROP\s+(?:TABLE|DATABASE)\b|\bTRUNCATE\s+TABLE\b|\.drop_all\s*\(|\.create_all\s*\(|\bos\.(?:remove|unlink|rmdir)\s*\(|shutil\.rmtree\s*\(|\bopen\s*\([^)\n]*['"][wa]b?\+?['"]/;
/** Destroying or rebuilding the store, shutting the service down: administration, whatever the route is called. */
const ADMINISTERS = /\.drop_all\s*\(|\.create_all\s*\(|\bDROP\s+(?:TABLE|DATABASE)\b|\bTRUNCATE\s+TABLE\b|\.objects\.all\(\)\.delete\s*\(|\.query\.delete\s*\(|\bshutdown\s*\(|os\._exit\s*\(/;
/** Running commands or code the process would not run otherwise, and handing out files. */
const RUNS_OR_SERVES =
  /\bsubprocess\.|\bos\.(?:system|popen|exec\w*|spawn\w*)\s*\(|\beval\s*\(|\bexec\s*\(|\bpickle\.loads?\s*\(|\byaml\.(?:unsafe_)?load\s*\(|\bmarshal\.loads\s*\(|\bsend_file\s*\(|\bsend_from_directory\s*\(|\bFileResponse\s*\(/;
/** Every user's account records at once: a listing of the user or account model, or of its table. */
const LISTS_USERS =
  /\b(?:User|Users|UserProfile|Profile|Account|Customer|Member|Employee|Patient|Person)\s*\.\s*(?:query\s*\.\s*all|objects\s*\.\s*(?:all|values\w*)|select|find|all|get_all\w*|list\w*|fetch_all\w*)\s*\(\s*(?:\{\s*\})?\s*\)|\bquery\s*\(\s*(?:User|Account|Customer|Member|Employee|Patient|Person)\s*\)\s*\.\s*all\s*\(|\b(?:db|mongo)\s*(?:\.|\[['"])users['"]?\]?\s*\.\s*find\s*\(\s*(?:\{\s*\})?\s*\)/;
const LISTS_USER_TABLE = /\bSELECT\b[^'"]*\bFROM\s+[`"]?(?:users?|accounts?|customers?|members?|employees?|patients?|people|persons?|user_?profiles?)\b[`"]?(?![^'"]*\bWHERE\b)/i;
/** Lines of serious static findings that matter more when anyone may reach them: code, commands, deserialization, XML entities, templates from strings, files. */
const REACHABLE_SINK = /\beval\s*\(|\bexec\s*\(|subprocess|os\.(?:system|popen)|pickle|yaml\.|marshal|render_template_string|from_string|Template\s*\(|etree|XMLParser|parseString|minidom|\bsax\b|\bopen\s*\(|send_file|send_from_directory|compile\s*\(/;

/**
 * What a Python handler does that calls for an authenticated caller, in a phrase for the message, or
 * nothing when it only reads what anyone may read.
 */
export function privilegedEffectOf(h: Handler, hotspots: Hotspots): string | undefined {
  const body = withImportsNamed(h.body.replace(/^[^\n]*\n/, ''), h.file.importedNames);
  const lines = withImportsNamed(h.body, h.file.importedNames).split('\n');
  const sinkHere = (hotspots[h.file.path] ?? []).some((line) => line >= h.defLine && line <= h.endLine && REACHABLE_SINK.test(lines[line - h.defLine] ?? ''));
  if (ADMINISTERS.test(body)) return 'administers the application (drops, rebuilds or empties its data)';
  if (sinkHere || RUNS_OR_SERVES.test(body)) return 'runs commands or code, or hands out files';
  if (WRITES.test(body) || h.methods.some((m) => m === 'PUT' || m === 'PATCH' || m === 'DELETE')) return 'changes stored data';
  if (LISTS_USERS.test(body) || LISTS_USER_TABLE.test(body)) return "reads users' account records";
  return undefined;
}

/** Code with each call of an imported name written as what it imports: `rp(cmd)` after `from os import popen as rp` is `os.popen(cmd)`. */
const withImportsNamed = (code: string, imported: Map<string, string>): string =>
  code.replace(/\b(\w+)(\s*\()/g, (call, name: string, open: string) => (imported.get(name)?.includes('.') ? `${imported.get(name)}${open}` : call));
