import type { ReactNode } from 'react';
import { MantineProvider } from '@mantine/core';
import { consoleTheme } from './theme.js';

/** The user's `theme` preference: `light`, `dark`, or anything else (`auto`) follows the system. */
export function colorSchemeOf(theme: string | undefined): 'light' | 'dark' | 'auto' {
  return theme === 'light' || theme === 'dark' ? theme : 'auto';
}

/** Mantine with the console theme; the shell renders it once, around every remote. */
export function DesignSystemProvider({ theme, children }: { theme?: string; children: ReactNode }) {
  const scheme = colorSchemeOf(theme);
  return (
    <MantineProvider theme={consoleTheme} defaultColorScheme="auto" {...(scheme === 'auto' ? {} : { forceColorScheme: scheme })}>
      {children}
    </MantineProvider>
  );
}
