import { describe, expect, it } from 'vitest';
import { parsePaymentsConfig } from './config.js';

describe('parsePaymentsConfig', () => {
  it('is null without STRIPE_SECRET_KEY: card payments are off', () => {
    expect(parsePaymentsConfig({})).toBeNull();
    expect(parsePaymentsConfig({ STRIPE_SECRET_KEY: '' })).toBeNull();
  });

  it('reads the key and another API endpoint', () => {
    expect(parsePaymentsConfig({ STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_API_BASE: 'http://127.0.0.1:12111' })).toEqual({
      secretKey: 'sk_test_abc',
      apiBase: new URL('http://127.0.0.1:12111'),
    });
  });

  it('names the variable that is wrong', () => {
    expect(() => parsePaymentsConfig({ STRIPE_SECRET_KEY: 'pk_test_abc' })).toThrow(/^STRIPE_SECRET_KEY: /);
    expect(() => parsePaymentsConfig({ STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_API_BASE: 'ftp://x' })).toThrow(/^STRIPE_API_BASE: /);
    expect(() => parsePaymentsConfig({ STRIPE_API_BASE: 'http://127.0.0.1:1' })).toThrow(/^STRIPE_API_BASE: set STRIPE_SECRET_KEY/);
  });
});
