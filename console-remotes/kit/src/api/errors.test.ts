import { describe, expect, it } from 'vitest';
import { errorFromResponse, tierLimitOf } from './errors.js';

const response = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('tierLimitOf', () => {
  it("reads the console API's tier-limit refusals with the plan's allowance", async () => {
    for (const errorCode of ['projectLimitReached', 'maxUsage', 'usageLimit', 'organizationMemberLimitReached']) {
      const error = await errorFromResponse(response(400, { message: 'Your plan allows 25 projects', errorCode, limit: 25 }));
      expect(tierLimitOf(error)).toEqual({ message: 'Your plan allows 25 projects', limit: 25 });
    }
  });

  it("reads /v1's 402 {message, limit}", async () => {
    const error = await errorFromResponse(response(402, { message: 'Your plan allows 100 agents', limit: 100 }));
    expect(tierLimitOf(error)).toEqual({ message: 'Your plan allows 100 agents', limit: 100 });
  });

  it('is null for any other failure', async () => {
    expect(tierLimitOf(await errorFromResponse(response(400, { message: 'Slug taken', errorCode: 'slugAlreadyTaken' })))).toBeNull();
    expect(tierLimitOf(await errorFromResponse(response(400, { message: 'Card declined', errorCode: 'paymentError' })))).toBeNull();
    expect(tierLimitOf(new Error('offline'))).toBeNull();
  });
});
