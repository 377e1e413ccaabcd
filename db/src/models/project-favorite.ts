import { TenantModel } from './base-model.js';

export class ProjectFavorite extends TenantModel {
  static override tableName = 'project_favorites';
  static override idColumn = ['userId', 'projectId'];
  declare userId: string;
  declare projectId: string;
}
