import { scanTypesOf } from '../scanning/scan-types/index.ts';

/** The two route families differ only in the parent resource's name; everything else is shared. */
export interface Family {
  kind: 'repository' | 'application';
  collection: 'repositories' | 'applications';
  param: 'repository_id' | 'application_id';
  idField: 'repository_id' | 'application_id';
  label: 'Repository' | 'Application';
  tag: string;
  scanTypes: readonly string[];
}

export const REPOSITORY_FAMILY: Family = {
  kind: 'repository',
  collection: 'repositories',
  param: 'repository_id',
  idField: 'repository_id',
  label: 'Repository',
  tag: 'repositories',
  scanTypes: scanTypesOf('repository'),
};

export const APPLICATION_FAMILY: Family = {
  kind: 'application',
  collection: 'applications',
  param: 'application_id',
  idField: 'application_id',
  label: 'Application',
  tag: 'applications',
  scanTypes: scanTypesOf('application'),
};

export const FAMILIES = [REPOSITORY_FAMILY, APPLICATION_FAMILY] as const;
