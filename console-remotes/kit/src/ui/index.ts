/*
 * The design system: Mantine components and hooks, reached only through the kit, so the shell and
 * every remote render with one Mantine instance (one theme, one color scheme). What the shell's
 * own screens need is here; heavier inputs only remotes use are in `@engram/console-kit/widgets`,
 * a second shared singleton that loads when a remote first needs it.
 */
export {
  ActionIcon,
  Alert,
  Anchor,
  AppShell,
  Avatar,
  Badge,
  Box,
  Burger,
  Button,
  Card,
  Center,
  Code,
  CopyButton,
  Divider,
  Flex,
  Group,
  Loader,
  Menu,
  Modal,
  NativeSelect,
  NavLink,
  Paper,
  PasswordInput,
  ScrollArea,
  SegmentedControl,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  ThemeIcon,
  Title,
  Tooltip,
  UnstyledButton,
  useComputedColorScheme,
  useMantineColorScheme,
  useMantineTheme,
  rem,
} from '@mantine/core';
export type { MantineColor, MantineSize } from '@mantine/core';
export { useDebouncedValue, useDisclosure, useMediaQuery } from '@mantine/hooks';
export { CopyField, EmptyState, ErrorNotice, NameSearch, PageHeader, Pager, Section } from './components.js';
export { colorSchemeOf, DesignSystemProvider } from './design-system-provider.js';
export { consoleTheme } from './theme.js';
export { LAYOUT_COOKIE, layoutCookieValue, parseLayoutCookie, usePanelSizes } from './layout-cookie.js';
export { SplitPane } from './split-pane.js';
export { createFormatters, useFormatters, type Formatters } from './format.js';
