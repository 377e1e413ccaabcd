import { z } from 'zod';

export const CloudAccessCodeBody = z.object({ code: z.string().trim().min(1).max(200) });

export const CloudAccessSchema = z.object({ hasCloudAccess: z.boolean() });
