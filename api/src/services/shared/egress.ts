import { EgressRefusedError, type EgressPolicy } from '@engram/integrations/egress';
import { UnprocessableError } from '../../errors.js';

/** What a service needs to refuse a URL when it is given. */
export type UrlGate = Pick<EgressPolicy, 'assertAllowed'>;

/**
 * Refuses, when it is given, a URL the egress policy would never connect to for the organization (loopback, private
 * networks, cloud metadata, …): a 422 naming the field. Every connection is checked again when it is made.
 */
export async function assertReachableUrl(egress: UrlGate, organizationId: string, url: string, loc: Array<string | number>): Promise<void> {
  try {
    await egress.assertAllowed(url, { organizationId });
  } catch (error) {
    if (error instanceof EgressRefusedError) throw new UnprocessableError(loc, error.message, 'value_error');
    throw error;
  }
}
