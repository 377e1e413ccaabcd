import { describe, expect, it } from 'vitest';
import { typecheckConsole } from '../../scripts/console-build.js';

// The root tsconfig checks the Node side; the browser code (DOM, JSX) has a tsconfig of its own.
describe('the console sources', () => {
  it('type-check (shell, kit and remotes, with DOM and JSX)', { timeout: 240_000 }, () => {
    expect(() => typecheckConsole()).not.toThrow();
  });
});
