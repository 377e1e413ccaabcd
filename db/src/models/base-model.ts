import { Model, QueryBuilder, type Page } from 'objection';

/** Scopes every query to one organization; tenant tables always go through it. */
export class TenantQueryBuilder<M extends Model, R = M[]> extends QueryBuilder<M, R> {
  declare ArrayQueryBuilderType: TenantQueryBuilder<M, M[]>;
  declare SingleQueryBuilderType: TenantQueryBuilder<M, M>;
  declare MaybeSingleQueryBuilderType: TenantQueryBuilder<M, M | undefined>;
  declare NumberQueryBuilderType: TenantQueryBuilder<M, number>;
  declare PageQueryBuilderType: TenantQueryBuilder<M, Page<M>>;

  forOrg(organizationId: string): this {
    return this.where(`${this.tableRefFor(this.modelClass())}.organization_id`, organizationId);
  }
}

export class BaseModel extends Model {
  declare createdAt: Date;
  declare updatedAt: Date;

  /** Link tables (agent_blocks, agent_tools, run_events) have no timestamps to maintain. */
  static hasTimestamps = true;

  override $beforeUpdate(): void {
    if ((this.constructor as typeof BaseModel).hasTimestamps) this.updatedAt = new Date();
  }
}

export class TenantModel extends BaseModel {
  declare QueryBuilderType: TenantQueryBuilder<this>;
  static override QueryBuilder = TenantQueryBuilder;

  declare organizationId: string;
}
