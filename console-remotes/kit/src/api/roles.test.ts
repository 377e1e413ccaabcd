import { describe, expect, it } from 'vitest';
import { ASSIGNABLE_PERMISSIONS as API_ASSIGNABLE_PERMISSIONS, ROLES as API_ROLES } from '@engram/api/http/permissions';
import { ASSIGNABLE_PERMISSIONS, ROLES } from './roles.js';

describe("the kit's copy of the roles", () => {
  it('offers exactly the roles and grantable permissions the API accepts', () => {
    expect(ROLES).toEqual(API_ROLES);
    expect([...ASSIGNABLE_PERMISSIONS].sort()).toEqual([...API_ASSIGNABLE_PERMISSIONS].sort());
    expect(new Set(ASSIGNABLE_PERMISSIONS).size).toBe(ASSIGNABLE_PERMISSIONS.length);
  });
});
