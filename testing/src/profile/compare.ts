/** `node --import tsx testing/src/profile/compare.ts <before.json> <after.json>`: two `npm run test:profile` runs side by side. */
import { readFileSync } from 'node:fs';
import { compareTable, type RunProfile } from './table.js';

const [beforeFile, afterFile] = process.argv.slice(2);
if (!beforeFile || !afterFile) {
  console.error('usage: compare.ts <before.json> <after.json>');
  process.exit(2);
}
const load = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as RunProfile;
console.log(compareTable(load(beforeFile), load(afterFile)));
