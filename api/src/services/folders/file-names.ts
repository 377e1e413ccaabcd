/** Longest file name kept, as on common file systems; longer names are cut before the extension. */
export const MAX_FILE_NAME_LENGTH = 255;

/** Characters no file system allows in a name, and control characters. */
const UNSAFE_CHARACTERS = /[<>:"|?*\u0000-\u001f\u007f]/g;

/** `report.final.pdf` → [`report.final`, `.pdf`]; a leading dot (`.env`) is part of the name, not an extension. */
export function splitExtension(fileName: string): [base: string, extension: string] {
  const slash = fileName.lastIndexOf('/');
  const dot = fileName.lastIndexOf('.');
  const nameStart = slash + 1;
  if (dot <= nameStart || dot === fileName.length - 1) return [fileName, ''];
  return [fileName.slice(0, dot), fileName.slice(dot)];
}

/**
 * The name an uploaded file is kept under: its last path segment (browsers and clients may send a path),
 * without characters file systems refuse, cut to `MAX_FILE_NAME_LENGTH`. Undefined when nothing is left.
 */
export function sanitizeUploadedName(uploaded: string): string | undefined {
  const lastSegment = uploaded.split(/[\\/]/).pop() ?? '';
  const cleaned = lastSegment.replace(UNSAFE_CHARACTERS, '').trim();
  if (cleaned === '' || cleaned === '.' || cleaned === '..') return undefined;
  if (cleaned.length <= MAX_FILE_NAME_LENGTH) return cleaned;
  const [base, extension] = splitExtension(cleaned);
  return base.slice(0, MAX_FILE_NAME_LENGTH - extension.length) + extension;
}

/**
 * The stored name of the `copiesBefore`-th copy of `originalName` in a folder: `<folder>/<name>` for the
 * first, `<folder>/<base>_(N).<ext>` after that, as the public API names them.
 */
export function folderFileName(folderName: string, originalName: string, copiesBefore: number): string {
  if (copiesBefore === 0) return `${folderName}/${originalName}`;
  const [base, extension] = splitExtension(originalName);
  return `${folderName}/${base}_(${copiesBefore})${extension}`;
}

/** `docs/guide.md` → `guide.md`: file listings show names without their folder, as the public API does. */
export function withoutFolderPrefix(fileName: string, folderName: string): string {
  const prefix = `${folderName}/`;
  return fileName.startsWith(prefix) ? fileName.slice(prefix.length) : fileName;
}
