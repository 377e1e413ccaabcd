import { BaseModel } from './base-model.js';

export class Organization extends BaseModel {
  static override tableName = 'organizations';
  declare id: string;
  declare name: string;
}
