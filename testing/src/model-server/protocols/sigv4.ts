import { createHash, createHmac } from 'node:crypto';
import type { ReceivedRequest } from './script.js';

export type AwsTestCredentials = { accessKeyId: string; secretAccessKey: string; region: string; service: string };

const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding as SigV4 wants it: everything but the unreserved characters. */
function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Checks a request's AWS Signature Version 4 the way AWS does: rebuilds the canonical request from what arrived
 * (path segments encoded once more, as for every service but S3), signs it with the test's secret and compares.
 * Returns why it does not verify, or null.
 */
export function sigV4Refusal(request: ReceivedRequest, rawPath: string, credentials: AwsTestCredentials): string | null {
  const authorization = request.headers.authorization ?? '';
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!match) return 'no SigV4 authorization header';
  const [, accessKeyId, date, region, service, signedHeaders, signature] = match as unknown as [string, string, string, string, string, string, string];
  if (accessKeyId !== credentials.accessKeyId) return 'UnrecognizedClientException: The security token included in the request is invalid.';
  if (region !== credentials.region || service !== credentials.service) return `wrong credential scope ${region}/${service}`;
  const amzDate = request.headers['x-amz-date'];
  if (typeof amzDate !== 'string' || !amzDate.startsWith(date)) return 'x-amz-date missing or not the scope date';
  const payloadHash = sha256(request.rawBody);
  const declared = request.headers['x-amz-content-sha256'];
  if (typeof declared === 'string' && declared !== payloadHash && declared !== 'UNSIGNED-PAYLOAD') return 'the body does not match x-amz-content-sha256';
  const headerNames = signedHeaders.split(';');
  if (!headerNames.includes('host')) return 'host is not signed';
  const canonicalHeaders = headerNames
    .map((name) => {
      const value = request.headers[name];
      return `${name}:${(Array.isArray(value) ? value.join(',') : (value ?? '')).trim().replace(/\s+/g, ' ')}\n`;
    })
    .join('');
  const canonicalQuery = [...request.query.entries()]
    .map(([key, value]) => [uriEncode(key), uriEncode(value)])
    .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
  const canonicalUri = rawPath.split('/').map(uriEncode).join('/');
  const canonicalRequest = [request.method, canonicalUri, canonicalQuery, canonicalHeaders, signedHeaders, typeof declared === 'string' ? declared : payloadHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, date), region), service), 'aws4_request');
  const expected = createHmac('sha256', key).update(stringToSign).digest('hex');
  return expected === signature ? null : 'InvalidSignatureException: The request signature we calculated does not match the signature you provided.';
}
