import type { Database } from './connection.js';
import type { SecretBox } from './secrets.js';

export type RotationReport = { columns: string[]; values: number };

/**
 * Re-seals every stored secret with the box's current key: every `*_enc` text column of the schema,
 * found in the catalog so a secret column added later is rotated too. `box` must open the old secrets
 * (created with the old key among its previous keys). One transaction: a value that no key opens
 * stops the rotation and changes nothing.
 */
export async function resealSecrets(db: Database, box: SecretBox): Promise<RotationReport> {
  // One-word aliases throughout: the connection maps snake_case result keys to camelCase.
  return db.transaction(async (trx) => {
    const columns = (
      await trx.raw<{ rows: Array<{ tbl: string; col: string }> }>(
        `select table_name as tbl, column_name as col from information_schema.columns
         where table_schema = 'public' and data_type in ('text', 'character varying') and column_name like '%\\_enc'
         order by 1, 2`,
      )
    ).rows;
    let values = 0;
    for (const { tbl, col } of columns) {
      const rows = (await trx.raw<{ rows: Array<{ rid: string; sealed: string }> }>('select ctid::text as rid, ?? as sealed from ?? where ?? is not null', [col, tbl, col])).rows;
      for (const { rid, sealed } of rows) {
        await trx.raw('update ?? set ?? = ? where ctid = ?::tid', [tbl, col, box.encrypt(box.decrypt(sealed)), rid]);
        values += 1;
      }
    }
    return { columns: columns.map(({ tbl, col }) => `${tbl}.${col}`), values };
  });
}
