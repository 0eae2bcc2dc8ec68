// Databases and data platforms: connection strings, service keys and passwords in their own config shapes.
import { keyed, re, rule, token, UUID, UUID_SAMPLE, type SecretRule } from './helpers.ts';

/**
 * `chars`, one at a time, where `start` does not begin: a connection string's body stops where another one
 * starts, so each is read once rather than once for every opening before it.
 */
const until = (start: string, chars: string) => String.raw`(?:(?!${start})${chars})`;
const ADO_START = '(?:Server|Data Source|Host|Address)=';

export const DATABASE_RULES: SecretRule[] = [
  rule('database-url-password', 'Database connection URL with a password', 'high',
    ['postgres', 'mysql', 'mongodb', 'redis', 'amqp', 'mssql', 'mariadb', 'jdbc'],
    re(String.raw`\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver)(?:\+[a-z0-9]{2,20})?://[^\s:/@"'\x60]{0,64}:(?<secret>[^\s@/"'\x60]{6,128})@[^\s/"'\x60]+`, 'i'),
    'DATABASE_URL=postgres://app:{a:20}@db.internal:5432/app', 2.5),
  rule('jdbc-url-password', 'JDBC URL with a password', 'high', ['jdbc:'],
    re(String.raw`jdbc:${until('jdbc:', '[a-z0-9:]')}{2,30}//${until('jdbc:', String.raw`[^\s"'\x60?;]`)}{1,200}[?;]${until('jdbc:', String.raw`[^\s"'\x60]`)}{0,300}?\bpassword=(?<secret>[^&;\s"'\x60]{6,128})`, 'i'),
    'jdbc:postgresql://db.internal:5432/app?user=app&password={a:20}', 2.5),
  // StackExchange.Redis configuration (Azure Cache for Redis): `host:port[,host:port…][,option=value…],password=…`.
  // Every part is bounded and hosts (`:`) and options (`=`) cannot be read for each other, so a run of them is read once.
  rule('redis-connection-string-password', 'Redis connection string with a password (StackExchange.Redis)', 'high', [',password='],
    re(String.raw`:\d{2,5}(?:,[\w.-]{1,64}:\d{2,5}){0,8}(?:,(?!password=)\w{1,32}=[^,\s"'\x60;]{0,64}){0,8},password=(?<secret>[^,\s"'\x60;]{8,128})`, 'i'),
    'REDIS="acme-cache.redis.cache.windows.net:6380,password={b:43}=,ssl=True,abortConnect=False"', {
      entropy: 3,
      negatives: ['acme-cache.redis.cache.windows.net:6380,password=,ssl=True', 'localhost:6379,password={a:5},ssl=True', 'connect(host, 6380, password={b:43}=)'],
    }),
  rule('adonet-connection-string-password', 'ADO.NET connection string with a password', 'high', ['password=', 'pwd='],
    re(String.raw`${ADO_START}${until(ADO_START, `[^;"'\n]`)}{1,200};${until(ADO_START, `[^"'\n]`)}{0,400}?(?:Password|Pwd)=(?<secret>[^;"'\s]{6,128})`, 'i'),
    'Server=tcp:db.internal,1433;Database=app;User ID=app;Password={a:20};Encrypt=True;', 2.5),
  rule('ftp-url-credentials', 'FTP URL with a password', 'high', ['ftp://', 'ftps://', 'sftp://'],
    re(String.raw`\b(?:s?ftps?)://[^\s:/@"'\x60]{1,64}:(?<secret>[^\s@/"'\x60]{6,128})@[^\s/"'\x60]+`, 'i'), 'ftp://deploy:{a:20}@files.internal/upload', 2.5),
  rule('pgpass-entry', 'PostgreSQL .pgpass password', 'high', [':5432:'],
    re(String.raw`(?<![^\s"'\x60=])[A-Za-z0-9._*-]{1,200}:5432:[^:\s"'\x60]{1,64}:[^:\s"'\x60]{1,64}:(?<secret>[^:\s"'\x60]{6,128})(?![^\s"'\x60,;])`),
    'db.internal:5432:app:app:{a:20}', 2.5),
  token('neon-api-key', 'Neon API key', 'high', ['napi_'], 'napi_[a-z0-9]{64}', 'napi_{l:64}'),
  token('supabase-access-token', 'Supabase personal access token', 'high', ['sbp_'], 'sbp_(?:oauth_)?[a-f0-9]{40}', 'sbp_{h:40}'),
  token('supabase-secret-key', 'Supabase secret API key', 'critical', ['sb_secret_'], 'sb_secret_[A-Za-z0-9_-]{31,64}', 'sb_secret_{u:31}'),
  keyed('supabase-service-role-key', 'Supabase service role key', 'critical', ['service_role', 'servicerole'], 'service_?role_?key|supabase_?service_?key',
    String.raw`eyJ[A-Za-z0-9_-]{15,}\.eyJ[A-Za-z0-9_-]{15,}\.[A-Za-z0-9_-]{20,}`, 'SUPABASE_SERVICE_ROLE_KEY=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{u:60}.{u:43}'),
  rule('planetscale-token', 'PlanetScale token', 'high', ['pscale_'],
    re(String.raw`(?<![A-Za-z0-9_-])(?<secret>pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{43})(?![A-Za-z0-9_-])`), 'pscale_tkn_{u:43}'),
  keyed('mongodb-atlas-private-key', 'MongoDB Atlas API private key', 'critical', ['atlas'], 'atlas_?(?:api_?)?private_?key|mongodb_?atlas_?private', UUID, 'MONGODB_ATLAS_PRIVATE_KEY=' + UUID_SAMPLE),
  token('mongodb-atlas-service-account-secret', 'MongoDB Atlas service account secret', 'critical', ['mdb_sa_sk_'], 'mdb_sa_sk_[A-Za-z0-9_-]{40,}', 'mdb_sa_sk_{u:48}'),
  keyed('upstash-redis-token', 'Upstash Redis REST token', 'high', ['upstash'], 'upstash', '[A-Za-z0-9_=-]{40,}', 'UPSTASH_REDIS_REST_TOKEN=A{u:60}=', 3.5),
  keyed('fauna-secret', 'Fauna secret', 'high', ['fauna'], 'fauna', 'fn[A-Za-z0-9_-]{38}', 'FAUNA_SECRET=fn{u:38}'),
  token('cockroachdb-api-key', 'CockroachDB Cloud API key', 'high', ['ccdb1_'], 'CCDB1_[A-Za-z0-9]{22}_[A-Za-z0-9]{30,40}', 'CCDB1_{a:22}_{a:35}'),
  token('aiven-service-password', 'Aiven service password', 'high', ['avns_'], 'AVNS_[A-Za-z0-9_-]{19,40}', 'AVNS_{u:19}'),
  token('clickhouse-cloud-secret', 'ClickHouse Cloud key secret', 'high', ['4b1d'], '4b1d[A-Za-z0-9]{38}', '4b1d{a:38}'),
  keyed('influxdb-token', 'InfluxDB API token', 'high', ['influx'], 'influx', '[A-Za-z0-9_-]{86}==', 'INFLUX_TOKEN={u:86}=='),
  keyed('snowflake-password', 'Snowflake password', 'high', ['snowflake', 'snowsql_pwd'], 'snowflake_?password|snowsql_?pwd', String.raw`[^\s"'\x60$]{8,128}`, 'SNOWFLAKE_PASSWORD={a:20}', 3.5),
  keyed('firebase-database-secret', 'Firebase Realtime Database secret', 'high', ['firebase'], 'firebase_?(?:database_?|db_?)?secret', '[A-Za-z0-9]{40}', 'FIREBASE_DATABASE_SECRET={a:40}'),
];
