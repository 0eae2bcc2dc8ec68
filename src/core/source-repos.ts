import { branchNameProblem } from '../scm/pull-requests/branch-name.ts';

export const PROVIDERS = ['github', 'gitlab', 'azure_devops'] as const;
export type Provider = (typeof PROVIDERS)[number];

export interface SourceSpec {
  provider: Provider;
  fullName: string;
  branch: string;
  cloneUrl?: string;
  htmlUrl?: string;
  token?: string;
}

const PROVIDER_ALIASES: Record<string, Provider> = {
  github: 'github',
  gitlab: 'gitlab',
  azure_devops: 'azure_devops',
  azure: 'azure_devops',
  ado: 'azure_devops',
};

/** Parses `provider:owner/name[@branch]`, the form operators type for `repo add --source`. */
export function parseSourceSpec(text: string): SourceSpec {
  const match = /^([a-z_]+):([^@\s]+?)(?:@([^\s]+))?$/.exec(text.trim());
  const provider = match && PROVIDER_ALIASES[match[1]];
  if (!match || !provider) {
    throw new Error(`invalid source "${text}": expected provider:owner/name[@branch] with provider one of ${PROVIDERS.join(', ')}`);
  }
  const fullName = match[2].replace(/\.git$/, '');
  const segments = fullName.split('/');
  const minSegments = provider === 'azure_devops' ? 3 : 2;
  if (segments.length < minSegments || segments.some((s) => !s || s === '.' || s === '..')) {
    const form = provider === 'azure_devops' ? 'organization/project/repository' : 'owner/name';
    throw new Error(`invalid source "${text}": ${provider} repositories are named ${form}`);
  }
  const branch = match[3] || 'main';
  const problem = branchNameProblem(branch);
  if (problem) throw new Error(`invalid source "${text}": "${branch}" is not a valid branch name: ${problem}`);
  return { provider, fullName, branch };
}

/** Where a repository lives on its provider's public cloud, used when no explicit URL is given. */
export function defaultUrls(provider: Provider, fullName: string): { cloneUrl: string; htmlUrl: string } {
  if (provider === 'github') {
    return { cloneUrl: `https://github.com/${fullName}.git`, htmlUrl: `https://github.com/${fullName}` };
  }
  if (provider === 'gitlab') {
    return { cloneUrl: `https://gitlab.com/${fullName}.git`, htmlUrl: `https://gitlab.com/${fullName}` };
  }
  const [organization, project, ...rest] = fullName.split('/');
  const url = `https://dev.azure.com/${organization}/${project}/_git/${rest.join('/')}`;
  return { cloneUrl: url, htmlUrl: url };
}
