import { randomBytes } from 'node:crypto';
import { postV1, type ApiTarget } from './http.js';

export type CreatedTool = { id: string; name: string } & Record<string, any>;

/** A Python tool source whose function (and so the tool) has a fresh name. */
export function pythonToolSource(name = `tool_${randomBytes(4).toString('hex')}`): string {
  return `def ${name}(text: str) -> str:\n    """Echoes the text.\n\n    Args:\n        text: What to echo.\n    """\n    return text\n`;
}

/** Creates a custom tool through `POST /v1/tools/`: a fresh Python echo tool unless `fields` say otherwise. */
export function createTool(target: ApiTarget, fields: Record<string, unknown> = {}): Promise<CreatedTool> {
  return postV1<CreatedTool>(target, '/tools/', { source_code: pythonToolSource(), ...fields });
}
