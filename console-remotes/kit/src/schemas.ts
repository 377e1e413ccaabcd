import * as z from 'zod/mini';
import { ASSIGNABLE_PERMISSIONS, ROLES } from './api/roles.js';

/*
 * Form rules, written to match the console API's request schemas (api/src/routes/console/*.ts)
 * and the spec's messages. zod/mini keeps them small in the browser; when a shared `contracts`
 * package exists, these move there and the API imports the same objects.
 */

const name = z.string().check(z.trim(), z.minLength(1, 'Name is required'), z.maxLength(100, 'Name must be at most 100 characters long'));

export const SignUpSchema = z.object({
  name,
  email: z.email('Enter a valid email address'),
  password: z.string().check(z.minLength(8, 'Password must be at least 8 characters long'), z.maxLength(256)),
});

export const LoginSchema = z.object({
  email: z.string().check(z.minLength(1, 'Email is required')),
  password: z.string().check(z.minLength(1, 'Password is required')),
});

export const PasswordResetSchema = z.object({
  email: z.string().check(z.minLength(1, 'Email is required')),
  code: z.string().check(z.minLength(1, 'Enter the code from the email')),
  password: z.string().check(z.minLength(8, 'Password must be at least 8 characters long'), z.maxLength(256)),
});

export const PasswordResetStartSchema = z.object({
  email: z.string().check(z.minLength(1, 'Email is required')),
});

export const SignUpWithInviteSchema = z.extend(SignUpSchema, {
  inviteCode: z.string().check(z.minLength(1, 'The invite code is missing')),
});

export const EmailVerificationSchema = z.object({
  verificationCode: z.string().check(z.trim(), z.minLength(1, 'Enter the code from the email')),
});

export const InviteSchema = z.object({
  email: z.email('Enter a valid email address'),
  role: z.enum(ROLES),
});

/** `customPermissions` apply to the custom role only; the API clears them for the others. */
export const MemberRoleSchema = z.object({
  role: z.enum(ROLES),
  customPermissions: z.array(z.enum(ASSIGNABLE_PERMISSIONS)),
});

/** Spec 000 §5: letters, digits and underscore only (the API's message, word for word). */
export const EnvironmentVariableSchema = z.object({
  key: z.string().check(
    z.minLength(1, 'Key is required'),
    z.maxLength(255, 'Key must be at most 255 characters long'),
    z.regex(/^[A-Za-z0-9_]+$/, 'Key must contain only letters, digits and underscores'),
  ),
  value: z.string().check(z.maxLength(64 * 1024, 'Value must be at most 65,536 characters long')),
});

export const ProjectSchema = z.object({ name });
export const OrganizationSchema = z.object({ name });
export const ApiKeySchema = z.object({ name });

export const MemoryBlockSchema = z.object({
  label: z.string().check(z.trim(), z.minLength(1, 'Label is required')),
  value: z.string(),
  limit: z.number().check(z.int('Limit must be a whole number'), z.minimum(1, 'Limit must be at least 1')),
});

export const CreateAgentSchema = z.object({
  name: z.string().check(z.trim(), z.minLength(1, 'Name is required')),
  model: z.string().check(z.minLength(1, 'Choose a model')),
  memoryBlocks: z.array(MemoryBlockSchema),
});

/** A conversation's name (its `summary`); empty leaves it unnamed. */
export const ConversationNameSchema = z.object({
  name: z.string().check(z.trim(), z.maxLength(200, 'Name must be at most 200 characters long')),
});

/** The forms of the console, by name (see `validateForm`). */
export const formSchemas = {
  signUp: SignUpSchema,
  login: LoginSchema,
  passwordReset: PasswordResetSchema,
  passwordResetStart: PasswordResetStartSchema,
  signUpWithInvite: SignUpWithInviteSchema,
  emailVerification: EmailVerificationSchema,
  invite: InviteSchema,
  memberRole: MemberRoleSchema,
  environmentVariable: EnvironmentVariableSchema,
  project: ProjectSchema,
  organization: OrganizationSchema,
  apiKey: ApiKeySchema,
  memoryBlock: MemoryBlockSchema,
  createAgent: CreateAgentSchema,
  conversationName: ConversationNameSchema,
};

/** Field → first message, for a form; empty when valid. */
export function fieldErrors(schema: Pick<z.ZodMiniType, 'safeParse'>, values: unknown): Record<string, string> {
  const result = schema.safeParse(values);
  if (result.success) return {};
  const errors: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const key = issue.path.map(String).join('.');
    errors[key] ??= issue.message;
  }
  return errors;
}
