import { azureDevOpsWebhooks } from './azure-devops.ts';
import type { WebhookReader } from './delivery.ts';
import { githubWebhooks } from './github.ts';
import { gitlabWebhooks } from './gitlab.ts';

export const WEBHOOK_READERS: readonly WebhookReader[] = [githubWebhooks, gitlabWebhooks, azureDevOpsWebhooks];

export function webhookReaderFor(provider: string): WebhookReader | undefined {
  return WEBHOOK_READERS.find((reader) => reader.provider === provider);
}
