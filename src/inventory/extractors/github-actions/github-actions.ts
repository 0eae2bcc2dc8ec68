import { component, type Component } from '../../component.ts';
import { ExtractError, isJsonObject, parseYamlDocument, type Extractor, type JsonObject } from '../extractor.ts';

// GitHub Actions workflows (`.github/workflows/*.yml`) and composite actions (`action.yml`): every
// `uses: owner/repo[/path]@ref` of a step, and every reusable workflow a job calls, is a dependency on
// that repository at that ref. `./local` actions are the repository's own code and `docker://` images
// are not actions, so neither is listed. A commit SHA stays the version as written: that is what runs.

const WORKFLOW_PATH = /(?:^|\/)\.github\/workflows\/[^/]+\.ya?ml$/;
/** owner/repo, an optional path inside it, then the ref. */
const REMOTE_USES = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)((?:\/[^@\s]+)?)@(\S+)$/;

export const githubActionsExtractor: Extractor = {
  id: 'github-actions',
  ecosystem: 'GitHub Actions',
  docs: "`.github/workflows/*.yml` and `*.yaml`, composite actions' `action.yml`: every `uses: owner/repo[/path]@ref` step and reusable workflow, as `pkg:githubactions/owner/repo@ref` (a SHA ref kept as written; `./local` actions and `docker://` images left out)",
  fileNames: ['action.yml', 'action.yaml'],
  filePaths: [WORKFLOW_PATH],
  lockfile: false,
  extract(file) {
    const document = parseYamlDocument(file);
    if (document === null || document === undefined) return [];
    if (!isJsonObject(document)) throw new ExtractError(file.path, 'not a YAML mapping');

    const uses: string[] = [];
    for (const job of Object.values(isJsonObject(document.jobs) ? document.jobs : {})) {
      if (!isJsonObject(job)) continue;
      if (typeof job.uses === 'string') uses.push(job.uses); // a reusable workflow
      uses.push(...stepUses(job.steps));
    }
    if (isJsonObject(document.runs)) uses.push(...stepUses(document.runs.steps)); // a composite action

    const seen = new Map<string, Component>();
    for (const reference of uses) {
      const match = REMOTE_USES.exec(reference.trim());
      if (!match || reference.startsWith('docker://')) continue;
      const [, owner, repo, , ref] = match;
      const c = component({ name: `${owner}/${repo}`, version: ref!, ecosystem: 'GitHub Actions', direct: true, sourceFile: file.path });
      seen.set(c.purl.toLowerCase(), c);
    }
    return [...seen.values()];
  },
};

function stepUses(steps: unknown): string[] {
  if (!Array.isArray(steps)) return [];
  return steps.filter(isJsonObject).flatMap((step: JsonObject) => (typeof step.uses === 'string' ? [step.uses] : []));
}
