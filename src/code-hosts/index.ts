// Every code host Bulwark knows, in one list: source parsing, checkout credentials, pull requests, the
// configuration and the API's schemas all read it. A new host is its descriptor file and a line here.
import { azureDevOps } from './azure-devops.ts';
import { lazyCodeHostClient, type CodeHost, type CodeHostClient } from './code-host.ts';
import { github } from './github.ts';
import { gitlab } from './gitlab.ts';

export const CODE_HOSTS = [github, gitlab, azureDevOps] as const;

export type CodeHostName = (typeof CODE_HOSTS)[number]['name'];
export const CODE_HOST_NAMES: readonly CodeHostName[] = CODE_HOSTS.map((host) => host.name);

/** The host of this name, if any. */
export function codeHostNamed(name: string): CodeHost<CodeHostName> | undefined {
  return CODE_HOSTS.find((host) => host.name === name);
}

/** The host a word stands for: its name or one of its aliases. */
export function codeHostCalled(word: string): CodeHost<CodeHostName> | undefined {
  return CODE_HOSTS.find((host) => host.name === word || host.aliases.includes(word));
}

/** `GitHub`, `GitLab`, `Azure DevOps`: the host's name as people write it; the name itself for an unknown host. */
export function codeHostLabel(name: string): string {
  return codeHostNamed(name)?.label ?? name;
}

/** Each host's API root, by host name. */
export type CodeHostSettings = Record<CodeHostName, string>;

/** The API roots from the environment (each host's `api.env`), without trailing slashes. */
export function codeHostSettings(env: Record<string, string | undefined>): CodeHostSettings {
  return Object.fromEntries(CODE_HOSTS.map((host) => [host.name, (env[host.api.env] || host.api.default).replace(/\/+$/, '')])) as CodeHostSettings;
}

/** A client per host, pointed at its configured API root; each loads its SDK when first used. */
export function codeHostClients(settings: CodeHostSettings, timeoutMs?: number): Record<CodeHostName, Required<CodeHostClient>> {
  return Object.fromEntries(
    CODE_HOSTS.map((host) => [host.name, lazyCodeHostClient(host.name, () => host.connect({ url: settings[host.name], timeoutMs }))]),
  ) as Record<CodeHostName, Required<CodeHostClient>>;
}
