import { Type } from '@sinclair/typebox';
import { EVENT_TYPES } from '../core/finding-events.ts';
import { ROLES } from '../core/roles.ts';
import { SCOPES } from '../core/scopes.ts';
import { SEVERITIES } from '../core/severity.ts';
import { BATCH_STATUS } from '../core/states/batch-status.ts';
import { FINDING_STATUSES } from '../core/states/finding-state.ts';
import { FIX_STATUS } from '../core/states/fix-status.ts';
import { SCAN_STATUS } from '../core/states/scan-status.ts';
import { quotaTypeForScan, SCAN_TYPES, scanTypesOf } from '../scanning/scan-types/index.ts';

// The lists the API's values come from, each named in the OpenAPI document's components.schemas (in the
// order of the module that owns it), so that clients, the console among them, read them from there.

const list = (title: string, values: readonly string[], description: string) => Type.String({ enum: [...values], title, description });

export const VOCABULARY_SCHEMAS = {
  Severity: list('Severity', SEVERITIES, 'How serious a finding is, most serious first.'),
  FindingStatus: list('FindingStatus', FINDING_STATUSES, 'Status of a security finding.'),
  ScanType: list('ScanType', SCAN_TYPES, 'Available scan types for repository security scanning.'),
  RepositoryScanType: list('RepositoryScanType', scanTypesOf('repository'), 'The scan types a repository can be scanned with.'),
  ApplicationScanType: list('ApplicationScanType', scanTypesOf('application'), 'The scan types an application can be scanned with.'),
  DeepAiScanType: list('DeepAiScanType', SCAN_TYPES.filter((type) => quotaTypeForScan(type) === 'deep_ai_scans'), 'The scan types a deep_ai_scans credit pays for; the others take a sast_scans credit.'),
  ScanBatchStatus: list('ScanBatchStatus', BATCH_STATUS.statuses, 'Status of a scan batch.'),
  ScanBatchEndStatus: list('ScanBatchEndStatus', BATCH_STATUS.terminal, 'The statuses a scan batch ends in; it never changes again.'),
  ScanStatus: list('ScanStatus', SCAN_STATUS.statuses, 'Status of the scan of one source repository.'),
  FixStatus: list('FixStatus', FIX_STATUS.statuses, 'Status of a fix.'),
  FindingEventType: list('FindingEventType', EVENT_TYPES, 'What a finding lifecycle event records.'),
  Role: list('Role', ROLES, "A member's role in an organization, highest first: each role can do everything the roles after it can."),
  Scope: list('Scope', SCOPES, 'What an API key may do.'),
};
