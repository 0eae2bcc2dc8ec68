import YAML from 'yaml';
import type { DeclaredOperation } from './python-program.ts';

// Routes declared outside the code: an OpenAPI (or Swagger 2) description whose operations name the
// function that answers them (`operationId: api_views.users.get_user`, or a function of the module named by
// `x-openapi-router-controller`), as connexion routes a Flask or aiohttp application.

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a `security` list demands credentials: some requirement other than the empty one. */
function demandsCredentials(security: unknown): boolean | undefined {
  if (!Array.isArray(security)) return undefined;
  return security.length > 0 && security.every((requirement) => isObject(requirement) && Object.keys(requirement).length > 0);
}

/** The operations an API description routes to functions; none when the text is not one. */
export function declaredOperations(text: string): DeclaredOperation[] {
  if (!/operationId/.test(text) || !/\b(?:openapi|swagger)\b/.test(text)) return [];
  let doc: unknown;
  try {
    doc = YAML.parse(text);
  } catch {
    return [];
  }
  if (!isObject(doc) || !isObject(doc.paths)) return [];
  const everywhere = demandsCredentials(doc.security) ?? false;
  const operations: DeclaredOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation) || typeof operation.operationId !== 'string') continue;
      const controller = operation['x-openapi-router-controller'] ?? item['x-openapi-router-controller'];
      const dotted = typeof controller === 'string' ? `${controller}.${operation.operationId}` : operation.operationId;
      const at = dotted.lastIndexOf('.');
      if (at <= 0) continue;
      operations.push({
        module: dotted.slice(0, at),
        function: dotted.slice(at + 1),
        method: method.toUpperCase(),
        path,
        guarded: demandsCredentials(operation.security) ?? everywhere,
      });
    }
  }
  return operations;
}
