import { createTheme, Table, type MantineColorsTuple } from '@mantine/core';

// A calm indigo-violet brand scale (Mantine's 10 shades, light to dark).
const engram: MantineColorsTuple = [
  '#f0f0ff', '#dedeff', '#bbbafa', '#9694f4', '#7672ef', '#615ced', '#5651ed', '#4742d3', '#3d3abd', '#3131a7',
];

export const consoleTheme = createTheme({
  primaryColor: 'engram',
  colors: { engram },
  defaultRadius: 'md',
  fontFamily: 'Inter, ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
  headings: { fontWeight: '650' },
  cursorType: 'pointer',
  // People who ask their system for less motion get panels that open at once.
  respectReducedMotion: true,
  components: {
    // A long name (up to the API's 200 characters, one unbroken word at worst) wraps inside its cell rather than
    // stretching its column past the screen, so every table keeps its other columns in view.
    Table: Table.extend({ styles: { td: { overflowWrap: 'anywhere' }, th: { overflowWrap: 'normal' } } }),
  },
});
