import { z } from 'zod';

/** The answer to Letta Code's search cache warm-up. */
export const CacheWarmResponse = z.object({ warmed: z.literal(false).describe('Nothing is cached: searches read the database directly') });
