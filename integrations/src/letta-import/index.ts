export { createLettaSource, normalizeSourceUrl, LettaSourceError, type LettaSource, type LettaSourceOptions } from './source.js';
export { rebuildMessages, type RebuiltMessage } from './messages.js';
export { createLettaImporter, importProgress, type ImportRef, type LettaImporter, type LettaImporterDeps } from './importer.js';
export type * from './source-types.js';
