import type { Codemod } from './codemod.ts';
import { goExecArgv } from './go/exec-argv.ts';
import { goParameterizedSql } from './go/parameterized-sql.ts';
import { goSha256Hash } from './go/sha256-hash.ts';
import { javaSecureRandom } from './java/secure-random.ts';
import { javaSha256Hash } from './java/sha256-hash.ts';
import { javaXmlNoDoctype } from './java/xml-no-doctype.ts';
import { javascriptCookieFlags } from './javascript/cookie-flags.ts';
import { javascriptDomText } from './javascript/dom-text.ts';
import { javascriptEscapeHtml } from './javascript/escape-html.ts';
import { javascriptExecFile } from './javascript/exec-file.ts';
import { javascriptJwtAlgorithms } from './javascript/jwt-algorithms.ts';
import { javascriptParameterizedSql } from './javascript/parameterized-sql.ts';
import { javascriptPathInside } from './javascript/path-inside.ts';
import { javascriptPublicUrl } from './javascript/public-url.ts';
import { javascriptSameSiteRedirect } from './javascript/same-site-redirect.ts';
import { javascriptSecureRandom } from './javascript/secure-random.ts';
import { javascriptSha256Hash } from './javascript/sha256-hash.ts';
import { phpEscapeEcho } from './php/escape-echo.ts';
import { phpEscapeShellArg } from './php/escape-shell-arg.ts';
import { phpUnserializeNoClasses } from './php/unserialize-no-classes.ts';
import { pythonAllowedHostsFromEnv } from './python/allowed-hosts-from-env.ts';
import { pythonAutoescapeOn } from './python/autoescape-on.ts';
import { pythonDebugFromEnv } from './python/debug-from-env.ts';
import { pythonDropDisablingHeader } from './python/drop-disabling-header.ts';
import { pythonSessionCookieFlags } from './python/session-cookie-flags.ts';
import { pythonEndOfOptions } from './python/end-of-options.ts';
import { pythonEscapeHtml } from './python/escape-html.ts';
import { pythonJwtVerify } from './python/jwt-verify.ts';
import { pythonLiteralEval } from './python/literal-eval.ts';
import { pythonParameterizedSql } from './python/parameterized-sql.ts';
import { pythonPublicUrl } from './python/public-url.ts';
import { pythonSafeJoin } from './python/safe-join.ts';
import { pythonSameSiteRedirect } from './python/same-site-redirect.ts';
import { pythonSecretsRandom } from './python/secrets-random.ts';
import { pythonSecureCookie } from './python/secure-cookie.ts';
import { pythonSha256Hash } from './python/sha256-hash.ts';
import { pythonShellArgv } from './python/shell-argv.ts';
import { pythonTemplateVariables } from './python/template-variables.ts';
import { pythonVerifiedSslContext } from './python/verified-ssl-context.ts';
import { pythonXpathVariables } from './python/xpath-variables.ts';
import { pythonXmlNoEntities } from './python/xml-no-entities.ts';
import { pythonYamlSafeLoad } from './python/yaml-safe-load.ts';
import { rubyEscapeHtml } from './ruby/escape-html.ts';
import { rubyParameterizedSql } from './ruby/parameterized-sql.ts';
import { rubyRedirectSameHost } from './ruby/redirect-same-host.ts';
import { rubyShellArgv } from './ruby/shell-argv.ts';
import { rubyYamlSafeLoad } from './ruby/yaml-safe-load.ts';
import { templateEscapedOutput } from './template/escaped-output.ts';

// The catalog: one small module per codemod, each naming the rules it fixes. A rule has at most one.
// Adding one: its module in <language>/, one line here (and its import), its cases in test/fixes/codemods.test.ts.

export const CODEMODS: readonly Codemod[] = [
  goExecArgv,
  goParameterizedSql,
  goSha256Hash,
  javaSecureRandom,
  javaSha256Hash,
  javaXmlNoDoctype,
  javascriptCookieFlags,
  javascriptDomText,
  javascriptEscapeHtml,
  javascriptExecFile,
  javascriptJwtAlgorithms,
  javascriptParameterizedSql,
  javascriptPathInside,
  javascriptPublicUrl,
  javascriptSameSiteRedirect,
  javascriptSecureRandom,
  javascriptSha256Hash,
  phpEscapeEcho,
  phpEscapeShellArg,
  phpUnserializeNoClasses,
  pythonAllowedHostsFromEnv,
  pythonAutoescapeOn,
  pythonDebugFromEnv,
  pythonDropDisablingHeader,
  pythonSessionCookieFlags,
  pythonEndOfOptions,
  pythonEscapeHtml,
  pythonJwtVerify,
  pythonLiteralEval,
  pythonParameterizedSql,
  pythonPublicUrl,
  pythonSafeJoin,
  pythonSameSiteRedirect,
  pythonSecretsRandom,
  pythonSecureCookie,
  pythonSha256Hash,
  pythonShellArgv,
  pythonTemplateVariables,
  pythonVerifiedSslContext,
  pythonXmlNoEntities,
  pythonXpathVariables,
  pythonYamlSafeLoad,
  rubyEscapeHtml,
  rubyParameterizedSql,
  rubyRedirectSameHost,
  rubyShellArgv,
  rubyYamlSafeLoad,
  templateEscapedOutput,
];

const byRule = new Map<string, Codemod>();
for (const codemod of CODEMODS) {
  for (const rule of codemod.rules) {
    if (byRule.has(rule)) throw new Error(`${rule} has two codemods: ${byRule.get(rule)!.name} and ${codemod.name}`);
    byRule.set(rule, codemod);
  }
}

export function codemodFor(ruleId: string): Codemod | undefined {
  return byRule.get(ruleId);
}
