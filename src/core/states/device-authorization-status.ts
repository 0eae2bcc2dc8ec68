import { statusMachine } from './machine.ts';

export type DeviceAuthorizationStatus = 'pending' | 'approved' | 'denied' | 'consumed';

/**
 * pending → approved | denied by a person in the console; approved → consumed when the device collects
 * its key, once. Denied and consumed codes never change again; an expired one is deleted, not moved.
 */
export const DEVICE_AUTHORIZATION_STATUS = statusMachine<DeviceAuthorizationStatus>('device authorization', {
  pending: ['approved', 'denied'],
  approved: ['consumed'],
  denied: [],
  consumed: [],
});
