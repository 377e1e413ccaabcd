export { BaseModel, TenantModel, TenantQueryBuilder } from './base-model.js';
export { Organization } from './organization.js';
export { User, type Role } from './user.js';
export { Project } from './project.js';
export { ApiKey } from './api-key.js';
